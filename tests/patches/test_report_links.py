"""make patches links each fix in index.html to the patch that carries it out, and only while
the finding still asks for that same fix."""

import json
import os
import re
import shutil
import subprocess
import sys

from patches_support import FIX, FROM, REPO, env_for

sys.path.insert(0, os.path.join(REPO, "scripts"))
from atomic_janitor import pipeline  # noqa: E402
from atomic_janitor.report import render_html  # noqa: E402


def _make_patches(tmp, tree, findings, out):
    argv = ["/usr/bin/python3", "-m", "atomic_janitor", "patches", "--ksrc", tree, "--output", out,
            "--findings", findings, "--from", FROM]
    return subprocess.run(argv, env=env_for(tmp), capture_output=True, text=True, check=False)


def _links(html):
    return dict(re.findall(r'<section class="finding" id="f-([0-9a-f]+)".*?(?:class="patch" href="([^"]+)"|</section>)',
                           html, re.S))


def test_make_patches_links_every_patched_fix_to_its_file(tmp_path, fxtree):
    reports = tmp_path / "reports" / "linux-fixture"
    reports.mkdir(parents=True)
    shutil.copyfile(os.path.join(FIX, "findings.json"), reports / "findings.json")
    doc = json.loads((reports / "findings.json").read_text())
    render_html(doc, str(reports))
    assert "class=\"patch\"" not in (reports / "index.html").read_text()

    out = tmp_path / "out"
    res = _make_patches(str(tmp_path), fxtree, str(reports / "findings.json"), str(out))
    assert res.returncode == 0, res.stderr
    assert "linked to their patch" in res.stdout
    index = json.loads((out / "linux-fixture" / "index.json").read_text())["patches"]
    links = {k: v for k, v in _links((reports / "index.html").read_text()).items() if v}
    assert set(links) == set(index)
    for fid, href in links.items():
        target = os.path.normpath(os.path.join(reports, href))
        assert os.path.isfile(target), href
        assert target.endswith(os.sep + index[fid]["file"]), (target, index[fid])
    unfixed = {f["id"] for f in doc["findings"] if not f.get("fix")}
    assert not unfixed & set(links)
    # the claim that verify's context recorder checks: class and function of each site
    by_id = {f["id"]: f for f in doc["findings"]}
    for fid, ent in index.items():
        f = by_id[fid]
        assert (ent["class"], ent["function"], ent["site"]) == \
            (f["class"], f["function"], f"{f['file']}:{f['line']}")


def test_a_finding_whose_fix_changed_loses_its_link(tmp_path):
    series = tmp_path / "series"
    series.mkdir()
    doc = json.loads(open(os.path.join(FIX, "findings.json")).read())
    fixed = [f for f in doc["findings"] if f.get("fix")][:2]
    index = {f["id"]: {"file": f"000{i + 1}-x.patch", "fix": pipeline.fix_digest(f["fix"])}
             for i, f in enumerate(fixed)}
    (series / "index.json").write_text(json.dumps({"tree": "linux-fixture", "patches": index}))
    assert set(pipeline.patch_links(doc, str(tmp_path / "r"), str(series))) == {f["id"] for f in fixed}
    fixed[0]["fix"] = dict(fixed[0]["fix"], strategy="something-else")
    assert set(pipeline.patch_links(doc, str(tmp_path / "r"), str(series))) == {fixed[1]["id"]}
    assert pipeline.patch_links(doc, str(tmp_path / "r"), str(tmp_path / "none")) == {}
