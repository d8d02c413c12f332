"""The context recorder's side in verify, offline: the parse of aj_ctx's dump, the claims of
a series held against recorded contexts, and the device map's reasons."""
import json

import pytest

from qemu_verify import claims, devices, parse

DUMP = """\
[    3.1] # aj-probe: p1_i2c_transfer i2c_transfer
[    3.2] # aj-hits: p1_i2c_transfer 3
[    3.2] # aj-ctx: p1_i2c_transfer hits=3 sleepable=3 task_atomic=0 softirq=0 hardirq=0 nmi=0 unknown=0 irqs_off=0 preempt_off=0 bh_off=0 rcu=0
[    3.2] # aj-ctx-caller: p1_i2c_transfer sleepable i2cdev_ioctl_rdwr+0x5c/0x1a0
[    5.0] # aj-hits: p1_i2c_transfer 9
[    5.0] # aj-ctx: p1_i2c_transfer hits=9 sleepable=6 task_atomic=2 softirq=0 hardirq=1 nmi=0 unknown=0 irqs_off=3 preempt_off=2 bh_off=0 rcu=0
[    5.0] # aj-ctx-caller: p1_i2c_transfer sleepable i2cdev_ioctl_rdwr+0x5c/0x1a0
[    5.0] # aj-ctx-caller: p1_i2c_transfer task_atomic aj_record_spinlock+0x31/0x90 [aj_i2c_record]
[    5.0] # aj-ctx-caller: p1_i2c_transfer hardirq aj_timer_fn+0x10/0x40
[    5.1] # aj-ctx: p2_cut hits=4 sleepable=4 task_atom
[    5.1] # aj-probe-failed: p3_gone gone_fn err=-2
"""


def test_the_last_whole_dump_counts_and_a_cut_line_is_not_read():
    ctx = parse.contexts(DUMP)
    assert set(ctx) == {"p1_i2c_transfer"}
    rec = ctx["p1_i2c_transfer"]
    assert (rec["hits"], rec["sleepable"], rec["task_atomic"], rec["hardirq"], rec["irqs_off"]) \
        == (9, 6, 2, 1, 3)
    assert rec["callers"]["task_atomic"] == "aj_record_spinlock+0x31/0x90 [aj_i2c_record]"
    assert parse.hits(DUMP)["p1_i2c_transfer"] == 9
    assert parse.failed_probes(DUMP) == ["p3_gone"]


@pytest.mark.parametrize("cls,rec,status", [
    ("sleepable-proven", {"hits": 5, "sleepable": 5}, "ok"),
    ("sleepable-proven", {"hits": 5, "sleepable": 4, "task_atomic": 1,
                          "callers": {"task_atomic": "f+0x1/0x2"}}, "violated"),
    ("sleepable-proven", {"hits": 2, "sleepable": 1, "softirq": 1}, "violated"),
    ("atomic-proven", {"hits": 3, "task_atomic": 2, "hardirq": 1}, "ok"),
    ("atomic-proven", {"hits": 3, "task_atomic": 2, "sleepable": 1}, "proof-error"),
    ("caller-gfp", {"hits": 3, "task_atomic": 2, "sleepable": 1}, "recorded"),
    ("assertion", {"hits": 1, "hardirq": 1}, "recorded"),
    ("sleepable-proven", {"hits": 2, "unknown": 2}, "recorded"),
    ("sleepable-proven", {"hits": 0}, "not-executed"),
    (None, None, "not-executed"),
])
def test_a_claim_against_the_recorded_contexts(cls, rec, status):
    assert claims.check(cls, rec)[0] == status


def test_an_atomic_region_inside_the_function_is_not_held_against_its_entry():
    rec = {"hits": 3, "sleepable": 3}
    assert claims.check("atomic-proven", rec)[0] == "proof-error"
    assert claims.check("atomic-proven", rec, region=True)[0] == "recorded"


def test_a_violation_names_the_first_atomic_caller():
    st, why = claims.check("sleepable-proven", {"hits": 2, "sleepable": 1, "task_atomic": 1,
                                                "callers": {"task_atomic": "g+0x4/0x8"}})
    assert st == "violated" and "g+0x4/0x8" in why and "1 time(s)" in why


def test_claims_come_from_the_series_index(tmp_path):
    (tmp_path / "index.json").write_text(json.dumps({"tree": "t", "patches": {
        "a": {"file": "net/0001-x.patch", "fix": "0", "class": "sleepable-proven",
              "function": "foo", "site": "drivers/x.c:10"},
        "b": {"file": "net/0001-x.patch", "fix": "0", "class": "sleepable-proven",
              "function": "foo", "site": "drivers/x.c:10"},
        "c": {"file": "old-0001.patch", "fix": "0"}}}))
    assert claims.load(str(tmp_path)) == {"net/0001-x.patch": [
        {"class": "sleepable-proven", "function": "foo", "site": "drivers/x.c:10",
         "live_bug": None, "region": False}]}
    assert claims.load(str(tmp_path / "nothing")) == {}


def test_device_map_reasons():
    dm = devices.load()
    assert devices.driver_of(dm, "drivers/i2c/i2c-core-base.c").name == "i2c-stub"
    assert devices.unreachable_reason(dm, "drivers/i2c/i2c-core-base.c", True, None) is None
    assert "QEMU has no model" in devices.unreachable_reason(
        dm, "drivers/scsi/qla2xxx/qla_os.c", True, None)
    assert devices.unreachable_reason(dm, "drivers/mmc/host/au1xmmc.c", False,
                                      "other architecture: not compile-tested on x86_64") == \
        "not built into the x86_64 test kernel (other architecture: not compile-tested on x86_64)"
    assert devices.unreachable_reason(dm, "drivers/misc/foo.c", True, None) == \
        "no device in qemu-verify/devices.json drives drivers/misc/foo.c"
    rxe = devices.driver_of(dm, "drivers/infiniband/ulp/srpt/ib_srpt.c")
    assert rxe.name == "soft_roce" and "RDMA_RXE" in rxe.kconfig
    assert ("rdma", "iproute2") in rxe.programs and "virtio-net-pci" in " ".join(rxe.qemu)
    assert devices.driver_of(dm, "drivers/infiniband/hw/mlx5/main.c") is None
    # a driven file's function that the device never runs says why, and fails nothing
    assert devices.driver_of(dm, "drivers/scsi/scsi_lib.c").name == "virtio_scsi_disk"
    assert devices.unreachable_reason(dm, "drivers/scsi/scsi_lib.c", True, None,
                                      "scsi_init_command") is None
    why = devices.unreachable_reason(dm, "drivers/scsi/scsi_lib.c", True, None, "scsi_kmap_atomic_sg")
    assert why.startswith("virtio_scsi_disk does not run scsi_kmap_atomic_sg(): ") and "esp_scsi" in why
    # a directory prefix matches files below it only, never a sibling with the same stem
    assert devices.driver_of(dm, "drivers/i2c/i2c-core-base.c.orig") is None


def test_every_device_entry_is_complete():
    dm = devices.load()
    for d in dm.devices:
        assert d.paths and d.workload, d.name
        assert all(not p.startswith("/") for p in d.paths)
    for paths, reason in dm.no_model:
        assert paths and reason


def test_a_broken_device_map_is_one_clear_error(tmp_path):
    bad = tmp_path / "devices.json"
    bad.write_text("{")
    with pytest.raises(Exception) as e:
        devices.load(str(bad))
    assert "restore qemu-verify/devices.json" in str(e.value.render())


def test_a_real_recorder_console_parses():
    """The console of a real boot (mutant-claim-sleepable): the C side's lines and this
    parser agree on the format, the shutdown dump (after the late IRQs-off transfer) wins."""
    import os
    with open(os.path.join(os.path.dirname(__file__), "data", "console-recorder.log"),
              errors="replace") as fh:
        text = fh.read()
    rec = parse.contexts(text)["p1___i2c_transfer"]
    assert (rec["hits"], rec["sleepable"], rec["task_atomic"], rec["irqs_off"],
            rec["preempt_off"], rec["unknown"]) == (4, 2, 2, 1, 1, 0)
    assert rec["callers"]["task_atomic"].startswith("i2c_transfer+")
    assert claims.check("sleepable-proven", rec)[0] == "violated"


def test_when_a_boot_without_the_fix_shows_the_live_bug():
    from qemu_verify import verify
    console = """[    3.0] ok 1 something
[    3.1] BUG: sleeping function called from invalid context at kernel/time/timer.c:2105
[    3.1] Call Trace:
[    3.1]  <TASK>
[    3.1]  msleep+0x2a/0x40
[    3.1]  stub_xfer+0x6e/0x3b0 [i2c_stub]
[    3.1]  __i2c_smbus_xfer+0x14b/0x5a0
"""
    shown, why = verify.live_bug_shown("always", "stub_xfer", console, {}, [])
    assert shown and "stub_xfer() in its trace" in why
    assert not verify.live_bug_shown("always", "other_fn", console, {}, [])[0]
    # inside a region that the guest declared, the splat was expected: not this bug
    declared = console.replace("[    3.1] BUG", "[    3.1]     # aj-expect-splat: sleeping-in-atomic\n"
                               "[    3.1] BUG", 1) + "[    3.2]     # aj-expect-splat-end\n"
    assert not verify.live_bug_shown("always", "stub_xfer", declared, {}, [])[0]
    ctx = {"p2_f": {"hits": 3, "preempt_off": 2}}
    assert verify.live_bug_shown("!PREEMPT_COUNT", "f", "", ctx, ["p2_f"])[0]
    assert not verify.live_bug_shown("!PREEMPT_COUNT", "f", "", {"p2_f": {"hits": 3}}, ["p2_f"])[0]
