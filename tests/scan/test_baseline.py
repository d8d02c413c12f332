"""Issue 14: a second scan after editing one file marks exactly that change new or gone; the
key survives line shifts."""

import json
import os
import shutil

import pytest

from ajtest import FIXTURES, run_cli

TREE = os.path.join(FIXTURES, "metamorphic", "tree")
pytestmark = pytest.mark.skipif(not shutil.which("spatch"), reason="spatch not installed")


def _scan(tree, out, cache, *extra):
    res = run_cli("scan", "--ksrc", tree, "--scope", "drivers", "--output", out, "--keep-going", *extra,
                  env={"XDG_CACHE_HOME": cache})
    assert res.returncode == 0, res.stderr
    with open(os.path.join(out, "tree", "findings.json"), encoding="utf-8") as fh:
        return json.load(fh), res.stdout


def test_second_scan_marks_the_edit(tmp_path):
    tree = str(tmp_path / "tree")
    shutil.copytree(TREE, tree)
    out, cache = str(tmp_path / "out"), str(tmp_path / "cache")
    first, _ = _scan(tree, out, cache)
    assert first["baseline"] is None and all(f["baseline_state"] is None for f in first["findings"])
    path = os.path.join(tree, "drivers", "meta", "meta_lock.c")
    with open(path) as fh:
        text = fh.read()
    # lines shift above every site of the file, one site goes, one comes
    text = "/* shifted */\n/* shifted */\n" + text.replace(
        "\tp = kmalloc(8, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);",
        "\tp = kmalloc(8, GFP_KERNEL);\n\tif (!in_atomic())\n\t\tmsleep(1);")
    with open(path, "w") as fh:
        fh.write(text)
    second, stdout = _scan(tree, out, cache)
    new = [(f["function"], f["form"]) for f in second["findings"] if f["baseline_state"] == "new"]
    assert new == [("meta_locked_site", "sleep-guard")]
    assert [(g["function"], g["form"]) for g in second["baseline"]["gone"]] == [("meta_locked_site", "gfp-select")]
    assert all(f["baseline_state"] == "unchanged" for f in second["findings"] if f["function"] != "meta_locked_site")
    assert "since the previous scan: 1 new, 1 gone" in stdout
    assert os.path.exists(os.path.join(out, "tree", "findings.previous.json"))
    with open(os.path.join(out, "tree", "findings.sarif"), encoding="utf-8") as fh:
        states = {r["baselineState"] for r in json.load(fh)["runs"][0]["results"]}
    assert states == {"new", "unchanged"}
    with open(os.path.join(out, "tree", "summary.txt"), encoding="utf-8") as fh:
        summary = fh.read()
    assert "[new] in_atomic() in meta_locked_site()" in summary and "gone: drivers/meta/meta_lock.c:" in summary
    # BASELINE= names the file to compare with
    third, _ = _scan(tree, str(tmp_path / "out3"), cache, "--baseline", os.path.join(out, "tree", "findings.previous.json"))
    assert [(f["function"]) for f in third["findings"] if f["baseline_state"] == "new"] == ["meta_locked_site"]
