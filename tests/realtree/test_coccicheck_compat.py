"""The detection rule runs unchanged under the kernel's own `make coccicheck` (report, context,
org) and reports the same in_atomic() sites as `make scan`. Run with O= so the cached tree
stays read-only, and with M= per directory (whole-tree coccicheck: see docs/findings-schema.md
notes in the closing report; spatch 1.1.1 segfaults on one --dir run over all of 6.1)."""

import os
import re
import subprocess

import pytest

from ajtest import REPO, run_cli

pytestmark = pytest.mark.realtree
RULE = os.path.join(REPO, "cocci", "in_atomic.cocci")
DIRS = ["drivers/xen", "drivers/usb/misc/sisusbvga", "drivers/dma-buf", "drivers/base/power"]


def _coccicheck(root, mode, directory, out):
    res = subprocess.run(["make", "-s", f"O={out}", "coccicheck", f"COCCI={RULE}", f"MODE={mode}",
                          f"M={os.path.join(root, directory)}", "J=1"],
                         cwd=root, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    return res.stdout


def _sites(text, mode, root):
    sites = set()
    if mode == "report":
        for m in re.finditer(r"^(\S+?):(\d+):\d+-\d+: ", text, re.M):
            sites.add((os.path.relpath(m.group(1), root), int(m.group(2))))
    elif mode == "org":
        for m in re.finditer(r"\[\[view:(\S+?)::face=\S+?::linb=(\d+)::", text):
            sites.add((os.path.relpath(m.group(1), root), int(m.group(2))))
    else:   # context: a unified diff whose '-' lines are the starred matches
        current, line = None, 0
        for l in text.splitlines():
            if l.startswith("+++ "):
                current = re.sub(r"^[ab]/", "", l[4:].split()[0].split("\t")[0])
                if "/tmp/nothing/" in current:      # spatch's name for the "after" side
                    current = current.split("/tmp/nothing/", 1)[1]
                elif current.startswith("/"):
                    current = os.path.relpath(current, root)
            elif l.startswith("@@"):
                line = int(re.match(r"@@ -(\d+)", l).group(1))
            elif current and not l.startswith(("---", "diff")):
                if l.startswith("-"):
                    sites.add((current, line))
                if not l.startswith("+"):
                    line += 1
    return sites


def test_coccicheck_reports_the_scans_direct_sites(tree61, tmp_path):
    out = tmp_path / "reports"
    res = run_cli("scan", "--ksrc", tree61.root, "--output", str(out), "--format", "json")
    assert res.returncode == 0, res.stderr
    import json
    doc = json.loads((out / tree61.name / "findings.json").read_text())
    want = {(r["file"], r["line"]) for r in doc["findings"]
            if r["called"] == "in_atomic" and any(r["file"].startswith(d + "/") for d in DIRS)}
    assert len(want) == 4
    before = sorted(os.listdir(tree61.root))
    for mode in ("report", "context", "org"):
        got = set()
        for d in DIRS:
            got |= _sites(_coccicheck(tree61.root, mode, d, tmp_path / "build"), mode, tree61.root)
        assert got == want, mode
    assert sorted(os.listdir(tree61.root)) == before
