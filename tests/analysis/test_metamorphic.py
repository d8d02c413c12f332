"""Issue 11: the class of a site depends only on the code that reaches it.

One fixture of the pattern seen on a vendor driver (tests/fixtures/metamorphic): a site two
levels under a work handler and under an exported caller's spinlock, a lock-select pair, a
site under the driver's own mutex helper, and an in_interrupt() site that only
PREDICATES=all scans. Each test changes one condition of the scan (predicates, jobs, cache,
unrelated files, scope) and asserts that every site keeps its class and its fix."""

import json
import os
import shutil

import pytest

from ajtest import FIXTURES, run_cli

TREE = os.path.join(FIXTURES, "metamorphic", "tree")
UNRELATED = os.path.join(FIXTURES, "metamorphic", "unrelated")
EXPECTED = {
    ("meta_do", "in_atomic"): "caller-gfp",           # work handler and spinlock: both contexts
    ("meta_select", "in_atomic"): "atomic-proven",    # both guards of the lock-select pair
    ("meta_locked_site", "in_atomic"): "sleepable-proven",
    ("meta_deep0", "in_atomic"): "manual-review",     # 14 levels under its work handler
    ("meta_flip", "in_atomic"): "caller-gfp",         # drm_can_sleep(): a wrapper, true means may sleep
}
_SCANS = {}

pytestmark = pytest.mark.skipif(not shutil.which("spatch"), reason="spatch not installed")


def scan(tmp_root, name, tree=TREE, scope="drivers", predicates="in_atomic", jobs=None,
         cache=None, no_cache=True):
    """{(function, predicate, line): (class, fix)} of one scan, run once per test session."""
    if name in _SCANS:
        return _SCANS[name]
    out = os.path.join(tmp_root, name)
    args = ["scan", "--ksrc", tree, "--scope", scope, "--predicates", predicates,
            "--output", out, "--keep-going"]
    if jobs:
        args += ["--jobs", str(jobs)]
    if no_cache:
        args.append("--no-cache")
    res = run_cli(*args, env={"XDG_CACHE_HOME": cache or os.path.join(tmp_root, name + ".cache")})
    assert res.returncode == 0, res.stderr
    (sub,) = os.listdir(out)
    with open(os.path.join(out, sub, "findings.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    got = {(f["function"], f["predicate"], f["line"]): (f["class"], f["fix"], f["file"], f["live_bug"])
           for f in doc["findings"]}
    _SCANS[name] = got
    return got


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("metamorphic"))


def meta_only(got):
    return {k: v for k, v in got.items() if v[2].startswith("drivers/meta/")}


def classes(got):
    return {(fn, pred): cls for (fn, pred, _line), (cls, _fix, _f, _lb) in got.items()}


def test_base_classes(root):
    got = classes(scan(root, "base"))
    for key, cls in EXPECTED.items():
        assert got[key] == cls, (key, got)
    assert len([k for k in scan(root, "base") if k[0] == "meta_select"]) == 2


def test_all_predicates_keep_the_in_atomic_classes(root):
    base = scan(root, "base")
    wide = scan(root, "all", predicates="all")
    # by place: under all, a site of a known wrapper (drm_can_sleep()) is that predicate's
    same = {k: wide.get(k) or next(v for (fn, _p, line), v in wide.items() if (fn, line) == (k[0], k[2]))
            for k in base}
    assert same == base
    # the extra site all scans is there (and cannot be proven: its only caller is exported)
    assert classes(wide)[("meta_log", "in_interrupt")] == "manual-review"
    # the in_interrupt() site in the middle of the deep chain is proven: it is 9 levels below
    # the handler; that its scan expands the upper levels must not prove the foot
    assert classes(wide)[("meta_deep5", "in_interrupt")] == "sleepable-proven"


def test_a_known_wrapper_keeps_its_polarity_as_a_predicate(root):
    """PREDICATES=all scans drm_can_sleep() as a predicate of its own, not as the wrapper of
    in_atomic() the default scan finds: the same site, the same class and the same gfp per
    caller (it once came out inverted, GFP_KERNEL under the irqsave lock)."""
    by_place = lambda got: {(fn, line): (cls, fix) for (fn, _p, line), (cls, fix, _f, _lb) in got.items()  # noqa: E731
                            if fn == "meta_flip"}
    base, wide = by_place(scan(root, "base")), by_place(scan(root, "all", predicates="all"))
    assert wide == base and len(base) == 1
    (cls, fix), = base.values()
    assert {c["function"]: c["gfp"] for c in fix["params"]["callers"]} == {
        "meta_flip_locked": "GFP_ATOMIC", "meta_flip_work": "GFP_KERNEL"}


def test_jobs_do_not_change_classes(root):
    assert scan(root, "all-j1", predicates="all", jobs=1) == scan(root, "all-j4", predicates="all", jobs=4)
    assert scan(root, "all-j1", predicates="all", jobs=1) == scan(root, "all", predicates="all")


def test_cold_and_warm_cache_agree(root):
    """Cold; warm per-file caches with the whole result invalidated (a file's mtime changed,
    its content not); and the whole result reused: the same classes all three times."""
    cache = os.path.join(root, "shared.cache")
    tree = os.path.join(root, "tree-copy")
    if not os.path.isdir(tree):
        shutil.copytree(TREE, tree)
    cold = scan(root, "cold", tree=tree, predicates="all", cache=cache, no_cache=False)
    some = next(os.path.join(d, f) for d, _ds, fs in sorted(os.walk(tree)) for f in sorted(fs)
                if f.endswith(".c"))
    os.utime(some, ns=(1, 1))
    warm_files = scan(root, "warm-files", tree=tree, predicates="all", cache=cache, no_cache=False)
    warm_result = scan(root, "warm-result", tree=tree, predicates="all", cache=cache, no_cache=False)
    assert os.path.isdir(cache)
    assert cold == warm_files == warm_result == scan(root, "all", predicates="all")


@pytest.fixture(scope="module")
def tree_with_unrelated(root):
    """The fixture plus an unrelated driver whose static lock helper has the name of the
    fixture's own (non-static, mutex) helper, and sites of its own."""
    t = os.path.join(root, "tree+unrelated")
    if not os.path.isdir(t):
        shutil.copytree(TREE, t)
        shutil.copytree(os.path.join(UNRELATED, "drivers", "other"), os.path.join(t, "drivers", "other"))
    return t


def test_unrelated_files_do_not_change_classes(root, tree_with_unrelated):
    for pred in ("in_atomic", "all"):
        alone = scan(root, "alone-" + pred, predicates=pred)
        more = scan(root, "more-" + pred, tree=tree_with_unrelated, predicates=pred)
        assert any(v[2].startswith("drivers/other/") for v in more.values())
        assert meta_only(more) == alone


def test_scope_of_the_driver_or_the_whole_tree(root, tree_with_unrelated):
    driver = scan(root, "scope-driver", tree=tree_with_unrelated, scope="drivers/meta", predicates="all")
    whole = scan(root, "scope-whole", tree=tree_with_unrelated, scope=".", predicates="all")
    assert meta_only(whole) == driver == scan(root, "all", predicates="all")


@pytest.fixture(scope="module")
def kernel_tree(root):
    """The fixture as a whole kernel tree (top Makefile with a version, Kconfig), with an
    in-tree caller of the exported meta_api(): a work handler."""
    t = os.path.join(root, "kernel-tree")
    if not os.path.isdir(t):
        shutil.copytree(TREE, t)
        with open(os.path.join(t, "Makefile"), "w") as fh:
            fh.write("VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\nEXTRAVERSION =\n")
        with open(os.path.join(t, "Kconfig"), "w") as fh:
            fh.write("mainmenu \"fixture\"\n")
        with open(os.path.join(t, "drivers", "meta", "meta_user.c"), "w") as fh:
            fh.write('// SPDX-License-Identifier: GPL-2.0\n#include "meta.h"\n\n'
                     "static struct work_struct meta_user_work;\n\n"
                     "static void meta_user_fn(struct work_struct *w)\n{\n\tmeta_api(NULL);\n}\n\n"
                     "void meta_user_init(void)\n{\n\tINIT_WORK(&meta_user_work, meta_user_fn);\n}\n")
    return t


def test_exported_symbol_policy_differs_by_tree_kind(root, kernel_tree):
    """Module directory: an exported function's callers are unknown. Whole kernel tree: its
    in-tree callers are its callers, and the evidence says so."""
    module = os.path.join(root, "module-tree")
    if not os.path.isdir(module):
        shutil.copytree(kernel_tree, module)
        os.remove(os.path.join(module, "Kconfig"))
    mod = scan(root, "module-dir", tree=module, predicates="all")
    assert classes(mod)[("meta_log", "in_interrupt")] == "manual-review"
    res = run_cli("scan", "--ksrc", kernel_tree, "--scope", "drivers", "--predicates", "all",
                  "--output", os.path.join(root, "kernel-out"), "--keep-going", "--no-cache",
                  env={"XDG_CACHE_HOME": os.path.join(root, "kernel-out.cache")})
    assert res.returncode == 0, res.stderr
    (sub,) = os.listdir(os.path.join(root, "kernel-out"))
    with open(os.path.join(root, "kernel-out", sub, "findings.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    assert doc["tree"]["kind"] == "kernel"
    log = next(f for f in doc["findings"] if f["function"] == "meta_log")
    assert log["class"] == "sleepable-proven", log["reason"]
    assert any(e["kind"] == "policy" and "all in-tree callers" in e["fact"] for e in log["evidence"])
    # meta_do is reached through the same export and keeps both contexts
    do = next(f for f in doc["findings"] if f["function"] == "meta_do")
    assert do["class"] == "caller-gfp"


def test_live_bugs_on_traced_atomic_paths(root):
    """Issue 16: the guess evaluated on each traced atomic path, with and without
    PREEMPT_COUNT; the same records whatever else the scan holds."""
    wide = scan(root, "all", predicates="all")
    bugs = {(fn, pred, line): v[3] for (fn, pred, line), v in wide.items() if v[3]}
    by_fn = {k[0]: v for k, v in bugs.items()}
    # in_interrupt() never sees spin_lock_irq(): the sleeping branch runs on every kernel
    assert by_fn["meta_bug_irqoff"]["when"] == "always"
    assert by_fn["meta_bug_irqoff"]["sleeps"] == "drivers/meta/meta_bug.c:9 msleep()"
    assert by_fn["meta_bug_irqoff"]["path"] == [
        "drivers/meta/meta_bug.c:42 meta_bug_work() takes spin_lock_irq()",
        "drivers/meta/meta_bug.c:43 meta_bug_work() calls meta_bug_irqoff()",
        "drivers/meta/meta_bug.c:8 meta_bug_irqoff()"]
    # in_atomic() sees a plain spin_lock() only with PREEMPT_COUNT
    assert by_fn["meta_select"]["when"] == "!PREEMPT_COUNT"
    assert by_fn["meta_select"]["sleeps"].endswith("mutex_lock()")
    # spin_lock_bh() raises the softirq count everywhere; process context is no bug; an
    # unknown (exported) caller is never a bug, nor is a lock taken by a function that only
    # such callers reach (meta_do() under meta_locked_op(), called by the exported
    # meta_api(): a softirq may call it), nor one that only a timer takes (meta_bug_in_timer())
    assert set(by_fn) == {"meta_bug_irqoff", "meta_select"}
    assert len([k for k in bugs if k[0] == "meta_select"]) == 1      # the lock, not the unlock
    # SARIF: a live bug is an error whatever its class
    (sub,) = [d for d in os.listdir(os.path.join(root, "all")) if not d.startswith(".")]
    with open(os.path.join(root, "all", sub, "findings.sarif"), encoding="utf-8") as fh:
        sarif = json.load(fh)
    levels = {r["properties"]["liveBug"] is not None: r["level"] for r in sarif["runs"][0]["results"]
              if r["properties"]["liveBug"]}
    assert levels == {True: "error"}
    with open(os.path.join(root, "all", sub, "summary.txt"), encoding="utf-8") as fh:
        summary = fh.read()
    assert summary.split("\n")[5].startswith("live bugs: 2")
    with open(os.path.join(root, "all", sub, "index.html"), encoding="utf-8") as fh:
        page = fh.read()
    assert '<h2 id="live-bugs">Live bugs (2)</h2>' in page
    assert page.index("live-bugs") < page.index('<table id="findings">')
    assert "<code>drivers/meta/meta_bug.c:42 meta_bug_work() takes spin_lock_irq()</code>" in page
