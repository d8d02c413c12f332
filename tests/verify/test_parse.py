"""KTAP parser and splat scan on golden console logs (real guest output and damaged copies)."""
import pytest

from verify_support import golden
from qemu_verify import parse
from qemu_verify.parse import Status


def test_real_console_passes():
    t = parse.parse_ktap(golden("console-pass.log"))
    assert t.status == Status.SUCCESS, parse.failures(t)
    assert [s.name for s in t.subtests] == ["i2c_stub_userspace", "i2c_tools", "aj_demo",
                                           "aj_i2c_record"]
    assert t.counts()["success"] == 18
    rec = t.subtests[3]
    assert [c.name for c in rec.subtests] == ["process_context_normal_path",
                                             "spinlock_running_normal_path",
                                             "late_shutdown_atomic_path"]


def test_a_real_device_workload_console():
    """make verify PREDICATES=all on 6.1: the soft-RoCE suite (rdma_rxe, ib_srpt, ib_srp)
    between the built-in suites and aj_i2c_record, and the recorder's counts for the two
    patched srpt functions, each with the caller it was entered from."""
    from qemu_verify import claims
    text = golden("console-soft-roce.log")
    t = parse.parse_ktap(text)
    assert t.status == Status.SUCCESS, parse.failures(t)
    assert [s.name for s in t.subtests] == ["i2c_stub_userspace", "i2c_tools", "aj_demo",
                                           "device_soft_roce", "aj_i2c_record"]
    ctx = parse.contexts(text)
    for ev, caller in (("p7_srpt_cm_req_recv", "srpt_rdma_cm_req_recv+"),
                       ("p7_srpt_release_sport", "srpt_remove_one+")):
        rec = ctx[ev]
        assert (rec["hits"], rec["sleepable"], rec["irqs_off"]) == (1, 1, 0)
        assert rec["callers"]["sleepable"].startswith(caller)
        assert claims.check("sleepable-proven", rec)[0] != "violated"
    assert not parse.scan_splats(text).unexpected


def test_truncated_console_is_crashed_not_pass():
    t = parse.parse_ktap(golden("console-truncated.log"))
    assert t.status == Status.CRASHED
    assert any("missing" in e for e in parse.failures(t))


def test_panicked_console_is_crashed():
    text = golden("console-panic.log")
    t = parse.parse_ktap(text)
    assert t.status == Status.CRASHED
    kinds = {s.kind for s in parse.scan_splats(text).unexpected}
    assert {"panic", "oops"} <= kinds


def test_failed_case_fails_suite_and_run():
    t = parse.parse_ktap(golden("console-case-fails.log"))
    assert t.status == Status.FAILURE
    f = parse.failures(t)
    assert any("smbus_byte_data" in l for l in f)


def test_parent_ok_with_failed_child_is_failure():
    text = "KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: s\n  1..2\n  ok 1 a\n" \
           "  not ok 2 b\nok 1 s\n"
    t = parse.parse_ktap(text)
    assert t.status == Status.FAILURE
    assert any("reported ok although" in e for e in t.subtests[0].errors)


@pytest.mark.parametrize("text,why", [
    ("", "no KTAP output"),
    ("booting...\nok 1 x\n", "no KTAP output"),
    ("KTAP version 1\nok 1 a\n", "missing plan line"),
    ("KTAP version 1\n1..2\nok 1 a\n", "missing test 2 of 2"),
    ("KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: s\n  1..1\n  ok 1 a\n",
     "missing result line"),
])
def test_pessimistic_cases(text, why):
    t = parse.parse_ktap(text)
    assert not t.status.ok
    assert any(why in l for l in parse.failures(t) + t.errors), parse.failures(t)


def test_zero_tests_is_not_a_pass():
    t = parse.parse_ktap("KTAP version 1\n1..0\n")
    assert t.status == Status.NO_TESTS
    assert not t.status.ok


def test_wrong_index_fails():
    t = parse.parse_ktap("KTAP version 1\n1..2\nok 1 a\nok 3 b\n")
    assert t.status == Status.FAILURE


def test_skip_directive_and_timestamps():
    text = ("[    1.000000] KTAP version 1\n[    1.000001] 1..2\n"
            "[    1.000002] ok 1 a # SKIP no hardware\n[    1.000003] ok 2 b\n")
    t = parse.parse_ktap(text)
    assert t.status == Status.SUCCESS
    assert t.subtests[0].status == Status.SKIPPED


def test_panic_anywhere_crashes_even_after_complete_ktap():
    text = "KTAP version 1\n1..1\nok 1 a\nKernel panic - not syncing: Attempted to kill init!\n"
    assert parse.parse_ktap(text).status == Status.CRASHED


def test_diagnostics_between_cases_are_ignored():
    text = "KTAP version 1\n1..2\n# hello\nrandom kernel noise\nok 1 a\n  # x\nok 2 b\n"
    assert parse.parse_ktap(text).status == Status.SUCCESS


def test_declared_splats_are_expected():
    r = parse.scan_splats(golden("console-pass.log"))
    assert r.ok
    assert {s.kind for s in r.splats} == {"sleeping-in-atomic", "lockdep"}
    assert all(s.expected for s in r.splats)


def test_undeclared_splat_fails_and_is_quoted():
    r = parse.scan_splats(golden("console-unexpected-lockdep.log"))
    assert not r.ok
    assert [s.kind for s in r.unexpected] == ["lockdep"]
    assert "Invalid wait context" in r.unexpected[0].text


def test_declared_but_missing_splat_fails():
    text = "# aj-expect-splat: sleeping-in-atomic\nnothing happened\n# aj-expect-splat-end\n"
    r = parse.scan_splats(text)
    assert not r.ok and r.missing and "sleeping-in-atomic" in r.missing[0]


def test_splat_outside_region_is_unexpected_even_if_declared_elsewhere():
    text = ("# aj-expect-splat: sleeping-in-atomic\n# aj-expect-splat-end\n"
            "BUG: sleeping function called from invalid context at x.c:1\n")
    r = parse.scan_splats(text)
    assert len(r.unexpected) == 1 and r.missing


@pytest.mark.parametrize("line,kind", [
    ("BUG: sleeping function called from invalid context at kernel/x.c:1", "sleeping-in-atomic"),
    ("BUG: scheduling while atomic: insmod/45/0x00000002", "scheduling-while-atomic"),
    ("WARNING: possible circular locking dependency detected", "lockdep"),
    ("[ BUG: Invalid wait context ]", "lockdep"),
    ("WARNING: CPU: 0 PID: 1 at drivers/i2c/i2c-core.h:42 i2c_transfer+0x1/0x2", "warning"),
    ("No atomic I2C transfer handler for 'i2c-0'", "i2c-no-atomic-handler"),
    ("Oops: 0000 [#1] PREEMPT", "oops"),
    ("general protection fault, probably for non-canonical address", "oops"),
    ("Kernel panic - not syncing: Fatal exception", "panic"),
    ("watchdog: BUG: soft lockup - CPU#0 stuck for 22s!", "bug"),
    ("i2c-stub: Virtual chip at 0x50", None),
])
def test_classify(line, kind):
    assert parse.classify(line) == kind


def test_guest_facts():
    text = golden("console-pass.log")
    assert parse.hits(text) == {"p1_stub_xfer": 144, "p2_i2c_mux_functionality": 0}
    assert parse.demo_value(text) == (1, "y")
    p = parse.paths(text)
    assert p["spinlock_running_normal_path"] == ("normal", "normal")
    assert p["late_shutdown_atomic_path"] == ("atomic", "atomic")


@pytest.mark.realtree
def test_kernel_kunit_parser_agrees(qv):
    """The tree's own tools/testing/kunit/kunit_parser.py gives the same pass/fail verdicts."""
    import importlib
    import io
    import os
    import sys
    from contextlib import redirect_stdout
    from qemu_verify import common
    kdir = os.path.join(common.DEFAULT_KSRC, "tools", "testing", "kunit")
    if not os.path.exists(os.path.join(kdir, "kunit_parser.py")):
        pytest.skip("no cached 6.1 tree")
    sys.path.insert(0, kdir)
    try:
        kp = importlib.import_module("kunit_parser")
        for name, ours in [("console-pass.log", True), ("console-truncated.log", False),
                           ("console-panic.log", False), ("console-case-fails.log", False)]:
            with redirect_stdout(io.StringIO()):
                t = kp.parse_run_tests(golden(name).splitlines(keepends=True))
            theirs = t.status == kp.TestStatus.SUCCESS
            assert theirs == ours, (name, t.status)
            assert parse.parse_ktap(golden(name)).status.ok == ours
    finally:
        sys.path.remove(kdir)
