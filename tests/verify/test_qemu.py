"""Real-boot tests: build the tinyconfig test kernel once (shared cache), boot it in QEMU.

Each scenario is one `qemu-verify run` through the real CLI, run at most once per session
(scenario fixture below); the kernel build dir is shared, so only the first one is cold.
Order matters for speed only: scenarios that keep the config come first.
"""
import json
import os
import subprocess

import pytest

from verify_support import PYTHON, QV, REPO

pytestmark = pytest.mark.qemu
SERIES = os.path.join(QV, "series")
# The scenarios about what the guest shows skip the per-patch W=1 compile test: the smoke
# series, the build error and the compile-only real-tree test cover that stage, and each
# compile test costs a few kbuild runs (about 10 s of CPU each, most of it kbuild's own).
BOOT_ONLY = ("--no-compile-test",)
_RUNS = {}


@pytest.fixture(scope="session")
def outdir(tmp_path_factory):
    return tmp_path_factory.mktemp("verify-reports")


@pytest.fixture(scope="session")
def scenario(outdir):
    def run(name, *args):
        if name not in _RUNS:
            out = os.path.join(str(outdir), name)
            p = subprocess.run([PYTHON, QV, *args, "--output", out, "--timeout", "240"],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
            res = None
            if os.path.exists(os.path.join(out, "result.json")):
                with open(os.path.join(out, "result.json")) as f:
                    res = json.load(f)
            _RUNS[name] = (p, res, out)
        return _RUNS[name]
    return run


def _path(res, case, out=None):
    """The recorded path of a guest case; a missing case fails with the console's tail (the
    one failure seen in CI was a KeyError here, with nothing to debug it from)."""
    paths = (res or {}).get("guest", {}).get("paths", {})
    if case not in paths:
        tail = ""
        if out and os.path.exists(os.path.join(out, "console.log")):
            with open(os.path.join(out, "console.log"), errors="replace") as fh:
                tail = "".join(fh.readlines()[-40:])
        pytest.fail(f"guest case {case} missing from the parsed result (cases: {sorted(paths)}); "
                    f"console tail:\n{tail}")
    return paths[case]


def _check_no_traceback(p):
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout


def test_unpatched_kernel_passes_all_suites(scenario):
    p, res, out = scenario("none", "run", "--series", "none")
    _check_no_traceback(p)
    assert p.returncode == 0, p.stdout + p.stderr
    assert res["verdict"] == "pass"
    suites = {s["name"]: s["status"] for s in res["guest"]["suites"]}
    assert suites == {"i2c_stub_userspace": "success", "i2c_tools": "success",
                      "aj_demo": "success", "aj_i2c_record": "success"}
    assert _path(res, "spinlock_running_normal_path", out)["taken"] == "normal"
    assert _path(res, "late_shutdown_atomic_path", out)["taken"] == "atomic"
    assert any(s.startswith("sleeping-in-atomic") for s in res["guest"]["splats"]["expected"])
    assert res["guest"]["splats"]["unexpected"] == []
    assert res["guest"]["demo"] == {"in_atomic_under_spinlock": 1, "preempt_count": True}
    assert os.path.getsize(os.path.join(out, "console.log")) > 0
    # the saved console re-parses offline to the same verdict
    r = subprocess.run([PYTHON, QV, "parse", os.path.join(out, "console.log")],
                       stdout=subprocess.PIPE, text=True)
    assert r.returncode == 0 and r.stdout.strip().endswith("PASS")


def test_mutant_sleep_under_spinlock_fails_naming_the_splat(scenario):
    p, res, _ = scenario("mutant-sleep", "run", *BOOT_ONLY, "--series",
                         os.path.join(SERIES, "mutant-sleep-under-spinlock"))
    _check_no_traceback(p)
    assert p.returncode == 1
    assert res["verdict"] == "fail"
    assert "scheduling-while-atomic" in p.stderr
    assert any(s.startswith("scheduling-while-atomic: BUG: scheduling while atomic")
               for s in res["guest"]["splats"]["unexpected"])
    assert res["patches"][0]["verdict"] == "fail"
    assert res["patches"][0]["compiled"] == "skipped"       # BOOT_ONLY
    # the mutated function is in the splat's call trace (the guest may die before the
    # kprobe counts are printed: a sleep under a spinlock can end in a panic)
    with open(os.path.join(_RUNS["mutant-sleep"][2], "console.log"), errors="replace") as f:
        assert "stub_xfer" in f.read()


def test_mutant_dropped_irq_check_fails_naming_the_wrong_path(scenario):
    p, res, _ = scenario("mutant-irq", "run", *BOOT_ONLY, "--series",
                         os.path.join(SERIES, "mutant-drop-irq-check"))
    _check_no_traceback(p)
    assert p.returncode == 1
    assert "late_shutdown_atomic_path: path=normal expected=atomic" in p.stderr
    assert _path(res, "late_shutdown_atomic_path", _RUNS["mutant-irq"][2])["taken"] == "normal"


def test_mutant_claim_only_the_recorder_can_refute(scenario):
    """A comment-only patch whose index.json claims __i2c_transfer() sleepable-proven: the
    guest calls it under a spinlock and with IRQs off, takes the atomic branch there, and no
    splat shows anything. Only the context recorder refutes the claim."""
    p, res, out = scenario("mutant-claim", "run", *BOOT_ONLY, "--series",
                           os.path.join(SERIES, "mutant-claim-sleepable"))
    _check_no_traceback(p)
    assert p.returncode == 1, p.stdout + p.stderr
    assert res["failed_stage"] == "context"
    assert res["guest"]["splats"]["unexpected"] == []
    assert res["guest"]["ktap"]["status"] == "success"
    row = next(r for r in res["guest"]["functions"] if r["function"] == "__i2c_transfer")
    assert row["claim"] == "sleepable-proven" and row["status"] == "violated"
    c = row["contexts"]
    assert c["sleepable"] > 0 and c["task_atomic"] > 0 and c["unknown"] == 0
    assert c["preempt_off"] > 0, "the spinlock case raises the preempt count"
    assert c["irqs_off"] > 0, "the late shutdown transfer runs with IRQs off"
    assert "i2c_transfer+" in row["why"], row["why"]    # the first atomic caller, by name


def test_live_bug_fix_is_reproduced_without_the_fix(scenario):
    """Patch 1 plants a live bug (in_interrupt() under a spinlock picks msleep()), patch 2
    fixes it and index.json says so: the patched kernel runs clean, and the live-bug stage
    boots the series without patch 2 and sees the splat with stub_xfer() in its trace."""
    p, res, out = scenario("live-bug", "run", *BOOT_ONLY, "--series", os.path.join(SERIES, "live-bug-fix"))
    _check_no_traceback(p)
    assert p.returncode == 0, p.stdout + p.stderr
    assert res["guest"]["splats"]["unexpected"] == []
    (lb,) = res["guest"]["live_bugs"]
    assert (lb["function"], lb["when"], lb["status"]) == ("stub_xfer", "always", "reproduced")
    assert "stub_xfer() in its trace" in lb["why"]
    assert os.path.exists(os.path.join(out, lb["console"]))
    row = next(r for r in res["guest"]["functions"] if r["function"] == "stub_xfer")
    assert row["status"] == "recorded" and row["contexts"]["sleepable"] > 0


def test_seed_revert_changes_the_spinlock_path(scenario):
    _, real, real_out = scenario("none", "run", "--series", "none")
    p, bad, bad_out = scenario("seed-revert", "run", *BOOT_ONLY, "--series", os.path.join(SERIES, "seed-revert"))
    _check_no_traceback(p)
    assert p.returncode == 1
    case = "spinlock_running_normal_path"
    assert _path(real, case, real_out)["taken"] == "normal"
    assert _path(bad, case, bad_out)["taken"] == "atomic"
    assert any("sleeping-in-atomic" in m for m in bad["guest"]["splats"]["missing"])
    assert bad["patches"][0]["executed"] > 0


def test_series_that_does_not_apply_names_the_patch(scenario):
    p, res, _ = scenario("bad-apply", "run", *BOOT_ONLY, "--series",
                         os.path.join(SERIES, "bad-does-not-apply"))
    _check_no_traceback(p)
    assert p.returncode == 1
    assert p.stderr.startswith("CRITICAL: apply: patch 2 0002-i2c-smbus-context-mismatch.patch")
    assert [r["applied"] for r in res["patches"]] == [True, False]
    # the cached pristine tree is untouched
    from qemu_verify import common
    with open(os.path.join(common.DEFAULT_KSRC, "drivers/i2c/i2c-stub.c")) as f:
        assert "no chip at" not in f.read()


def test_build_error_quotes_the_compiler(scenario):
    p, res, _ = scenario("bad-build", "run", "--series", os.path.join(SERIES, "bad-build-error"))
    _check_no_traceback(p)
    assert p.returncode == 1
    assert "CRITICAL: compile: patch 1" in p.stderr
    assert "drivers/i2c/i2c-stub.c:" in p.stderr and "error:" in p.stderr


@pytest.mark.skipif(os.environ.get("AJ_VERIFY_SKIP_DEMO") == "1", reason="AJ_VERIFY_SKIP_DEMO=1")
def test_demo_in_atomic_one_and_zero(scenario):
    p, _, _ = scenario("demo", "demo")
    _check_no_traceback(p)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "DEMO: in_atomic() under spin_lock(): 1 with PREEMPT_COUNT" in p.stdout
    assert ", 0 without (PREEMPT_NONE" in p.stdout


def test_out_of_tree_module_dir(scenario):
    """KDIR=: the series applies to a copy of the module dir, which is compile-tested with
    W=1 against the test kernel, loaded in the guest and its patched function probed."""
    kdir = os.path.join(SERIES, "oot-example", "module")
    before = open(os.path.join(kdir, "aj_oot_example.c")).read()
    p, res, _ = scenario("kdir", "run", "--kdir", kdir, "--series",
                         os.path.join(SERIES, "oot-example", "fix"))
    _check_no_traceback(p)
    assert p.returncode == 0, p.stdout + p.stderr
    row = res["patches"][0]
    assert row["compiled"] == "ok" and row["built_in"] == "module:aj_oot_example"
    assert row["functions"] == ["aj_oot_alloc"]
    assert row["executed"] and row["verdict"] == "tested"
    assert open(os.path.join(kdir, "aj_oot_example.c")).read() == before
    assert not [n for n in os.listdir(kdir) if n.endswith((".o", ".ko"))]


# last: the only scenario that switches a driver symbol on (CONFIG_I2C_MUX) and so changes
# the shared kernel config
def test_smoke_series_honest_per_patch_verdicts(scenario):
    p, res, _ = scenario("smoke", "run", "--series", os.path.join(SERIES, "smoke"))
    _check_no_traceback(p)
    assert p.returncode == 0, p.stdout + p.stderr
    v = [(r["verdict"], r["built_in"]) for r in res["patches"]]
    # patch 3's file cannot be enabled in the tinyconfig test kernel: the compile matrix
    # builds it (x86_64 allmodconfig), so it is compile-tested, not untested
    assert v == [("tested", "module:i2c-stub"), ("compile-tested-only", "vmlinux"),
                 ("compile-tested-only", "no")]
    assert res["patches"][0]["executed"] > 0
    assert "1 executed in the guest" in p.stdout.splitlines()[-4]
    c3 = res["patches"][2]["compile"][0]
    assert c3["config"] == "x86_64-allmodconfig" and c3["objects"] and c3["reason"] is None
    # every patched function: executed, or the reason it cannot run in QEMU
    st = {r["function"]: (r["status"], r["why"]) for r in res["guest"]["functions"]}
    assert st["stub_xfer"][0] == "recorded"
    assert st["i2c_mux_functionality"] == (
        "not-reachable", "no device in qemu-verify/devices.json drives drivers/i2c/i2c-mux.c")
    assert st["i2c_handle_smbus_alert"][0] == "not-reachable" and \
        st["i2c_handle_smbus_alert"][1].startswith("not built into the x86_64 test kernel")
