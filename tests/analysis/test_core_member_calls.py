"""Issue 11, reach: a callback stored in a core type (defined under include/) whose context no
document states. In a whole kernel tree the core's own calls are in the tree, so the calls
through the member are every call on that type, tree-wide (tests/fixtures/coremember). The
near-misses: a macro that names the member by its argument, a read into a variable, and a
call whose base type the text does not settle (it counts as a caller)."""

import json
import os
import shutil

import pytest

from ajtest import FIXTURES, run_cli

TREE = os.path.join(FIXTURES, "coremember", "tree")

pytestmark = pytest.mark.skipif(not shutil.which("spatch"), reason="spatch not installed")


def scan(tmp_path, tree):
    out = tmp_path / "out"
    res = run_cli("scan", "--ksrc", str(tree), "--scope", "drivers", "--output", str(out),
                  "--keep-going", "--no-cache", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert res.returncode == 0, res.stderr
    (sub,) = os.listdir(out)
    with open(out / sub / "findings.json", encoding="utf-8") as fh:
        return {f["function"]: f for f in json.load(fh)["findings"]}


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    return scan(tmp_path_factory.mktemp("coremember"), TREE)


def test_calls_tree_wide_prove_the_callback(found):
    # the core's work item calls ->sense; fxhv.c's (*p)->sense() is another struct's member
    rec = found["fxa_sense"]
    assert rec["class"] == "sleepable-proven", rec["reason"]
    facts = [e["fact"] for e in rec["evidence"]]
    assert "fxenc_work() calls fxa_sense() through ->sense (stored at drivers/gpu/fxa/fxa.c:35)" in facts
    assert not any("fxhv" in f for f in facts)


def test_call_on_a_returned_pointer(found):
    # fxenc_funcs_of(enc)->kick(enc) in another directory: the function's return type says
    rec = found["fxa_kick"]
    assert rec["class"] == "atomic-proven", rec["reason"]
    assert rec["fix"]["params"]["gfp"] == "GFP_ATOMIC"
    assert any(e["fact"] == "fxb_irq() calls fxa_kick() through ->kick (stored at drivers/gpu/fxa/fxa.c:38)"
               for e in rec["evidence"])


@pytest.mark.parametrize("fn,why", [
    ("fxa_warm", "->warm named by macro fxenc_call() (drivers/fxenc/fxenc_core.c:10)"),
    ("fxa_peek", "->peek read at drivers/gpu/fxb/fxb.c:18 (the pointer is passed on)"),
])
def test_calls_that_cannot_all_be_found(found, fn, why):
    rec = found[fn]
    assert rec["class"] == "manual-review"
    assert why in rec["reason"]


def test_an_unsettled_base_counts_as_a_caller(tmp_path):
    # The same unrelated file, but its base is a call of a function the tree does not
    # define: it may be a struct fxenc_funcs, so fxhv_init() is a caller with no context.
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    hv = tree / "arch" / "x86" / "kernel" / "fxhv.c"
    hv.write_text(hv.read_text().replace("(*p)->sense();", "fxhv_get(p)->sense();"))
    rec = scan(tmp_path, tree)["fxa_sense"]
    assert rec["class"] == "manual-review"
    assert any("fxhv_init" in e["fact"] for e in rec["evidence"]), rec["evidence"]
