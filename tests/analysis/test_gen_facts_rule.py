"""The checked-in fact rules are what gen_facts_rule.py generates (they are edited there)."""

import subprocess
import sys

from ajtest import REPO


def test_generated_rules_are_current():
    res = subprocess.run([sys.executable, "-m", "atomic_janitor.analysis.gen_facts_rule", "--check"],
                         cwd=REPO, env={"PYTHONPATH": f"{REPO}/scripts"}, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_region_rule_asks_only_for_the_named_callees():
    """The path analysis is restricted to the callees named in $AJ_PREDICATES."""
    with open(f"{REPO}/cocci/facts-regions.cocci") as fh:
        text = fh.read()
    regs = text.count("\n@reg_")
    assert regs >= 8
    assert text.count("identifier f : script:python() { f in CALLEES };") == regs
