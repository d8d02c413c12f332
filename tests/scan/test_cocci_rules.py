"""Coccinelle-style tests of the rules in cocci/: tests/cocci/<rule>_<case>.c with .stdout
(report mode, with the file under drivers/ as coccicheck sees it) and .res (the file after
the rule: detection rules leave it unchanged). A `_failure` case is a known failure."""

import glob
import os
import shutil
import subprocess

import pytest

from ajtest import REPO

CASES = sorted(glob.glob(os.path.join(REPO, "tests", "cocci", "*.c")))


def _rule_for(case):
    base = os.path.basename(case)[:-2]
    rule = base.rsplit("_", 1)[0]
    return os.path.join(REPO, "cocci", rule + ".cocci")


@pytest.mark.parametrize("case", CASES, ids=[os.path.basename(c)[:-2] for c in CASES])
def test_rule_case(case, tmp_path):
    rule = _rule_for(case)
    name = os.path.basename(case)
    work = tmp_path / "drivers"
    work.mkdir()
    shutil.copy(case, work / name)
    res = subprocess.run(["spatch", "--sp-file", rule, "-D", "report", "--no-includes", "--include-headers",
                          "--very-quiet", f"drivers/{name}"], cwd=tmp_path, capture_output=True, text=True,
                         check=False)
    assert res.returncode == 0, res.stderr
    got = sorted(l.replace("drivers/", "", 1) for l in res.stdout.splitlines() if l.strip())
    with open(case[:-2] + ".stdout") as fh:
        want = sorted(l for l in fh.read().splitlines() if l.strip())
    failure = name.endswith("_failure.c")
    if failure:
        if got == want:
            pytest.fail(f"{name} is marked _failure but passes now: rename it")
        pytest.xfail("known failure")
    assert got == want
    with open(case[:-2] + ".res") as fh:
        assert (work / name).read_text() == fh.read()


def test_rule_headers_follow_the_kernel_convention():
    for rule in sorted(glob.glob(os.path.join(REPO, "cocci", "*.cocci"))):
        text = open(rule).read()
        assert text.startswith("// SPDX-License-Identifier: GPL-2.0"), rule
        assert "\n/// " in text and "\n// Confidence:" in text and "\n// Options:" in text, rule
        assert "virtual report" in text or "virtual patch" in text, rule
