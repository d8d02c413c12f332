"""PREDICATES=all on Debian's 6.1: expected classes keyed on (file, function, expression)."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "analysis"))
from realtree_scan import find, scan  # noqa: E402

pytestmark = pytest.mark.realtree

EXPECTED = [
    # kthread port_ctl_rx_thread -> control_msg_handler -> t7xx_fsm_append_event: GFP_KERNEL.
    ("drivers/net/wwan/t7xx/t7xx_state_monitor.c", "t7xx_fsm_append_event", "in_interrupt()", "sleepable-proven", ""),
    # only reached from ndo_start_xmit (BHs off): in_interrupt() is 0 there, GFP_KERNEL was a bug.
    ("drivers/staging/rtl8723bs/os_dep/osdep_service.c", "_rtw_skb_copy", "in_interrupt()", "atomic-proven", ""),
    # WARN_ON(!irqs_disabled()) / WARN_ON(preemptible()) / WARN_ON(irqs_disabled()): lockdep states the same.
    # Not swapped where the kernel already guarantees the condition: a timer interrupt
    # (IRQF_TIMER: never force-threaded) and on_each_cpu() callbacks run with IRQs off.
    ("drivers/clocksource/timer-atmel-st.c", "at91rm9200_timer_interrupt", "!irqs_disabled()", "assertion",
     "no swap: the kernel already guarantees it: at91rm9200_timer_interrupt(): hard irq handler"),
    ("drivers/firmware/arm_sdei.c", "_ipi_mask_cpu", "preemptible()", "assertion",
     "no swap: the kernel already guarantees it: _ipi_mask_cpu(): on_each_cpu callback"),
    ("drivers/firmware/arm_sdei.c", "sdei_pm_notifier", "preemptible()", "assertion", ""),
    ("drivers/irqchip/irq-gic-v4.c", "its_commit_vpe", "preemptible()", "assertion", ""),
    ("drivers/scsi/scsi_lib.c", "scsi_kmap_atomic_sg", "!irqs_disabled()", "assertion", ""),
    ("drivers/scsi/qla2xxx/qla_init.c", "qla2x00_sp_timeout", "irqs_disabled()", "assertion", ""),
    # the seed's own rewrite, and a copy of it in atc260x.
    ("drivers/i2c/i2c-core.h", "i2c_in_atomic_xfer_mode", None, "well-defined-condition", ""),
    ("drivers/mfd/atc260x-core.c", "regmap_lock_mutex", None, "well-defined-condition", ""),
    # blocked, with the blocking fact named
    ("drivers/md/dm-crypt.c", "crypt_alloc_req_skcipher", "in_interrupt()", "manual-review", "stored at run time"),
    ("drivers/md/dm-crypt.c", "crypt_alloc_req_aead", "in_interrupt()", "manual-review", "stored at run time"),
    ("drivers/input/keyboard/lm8323.c", "lm8323_pwm_set_brightness", "in_interrupt()", "manual-review",
     "stored at run time"),
    ("drivers/staging/rtl8723bs/os_dep/osdep_service.c", "_rtw_malloc", "in_interrupt()", "manual-review", ""),
    # the PCM trigger is atomic now (no ->nonatomic in the driver): a live bug (see below);
    # the class stays manual-review, another caller is the snd_device_ops .dev_free callback
    ("sound/isa/gus/gus_reset.c", "snd_gf1_stop_voices", None, "manual-review", "snd_device_ops .dev_free"),
    ("drivers/gpu/drm/nouveau/nouveau_fbcon.c", "nouveau_fbcon_fillrect", None, "manual-review", "console"),
    # exported: the in-tree callers are followed (whole kernel tree) and end at unknowns
    ("drivers/xen/grant-table.c", "gnttab_add_deferred", None, "manual-review", "no caller or registration"),
    ("sound/core/seq/seq_clientmgr.c", "snd_seq_create_kernel_client", None, "manual-review",
     "context of this callback not known"),
    ("drivers/net/macvlan.c", "macvlan_start_xmit", None, "manual-review", "narrower question"),
    ("drivers/dma/sh/shdmac.c", "sh_dmae_nmi_handler", None, "manual-review", "in_nmi()"),
    ("drivers/dma-buf/dma-fence.c", "dma_fence_begin_signalling", None, "manual-review", "debug-only"),
    ("drivers/usb/misc/sisusbvga/sisusb_con.c", "sisusb_get_sisusb_lock_and_check", None, "manual-review", "console"),
]


@pytest.fixture(scope="module")
def doc():
    return scan("all")


@pytest.mark.parametrize("file,function,expression,cls,reason", EXPECTED,
                         ids=[f"{e[0].split('/')[-1]}:{e[1]}" for e in EXPECTED])
def test_site(doc, file, function, expression, cls, reason):
    for rec in find(doc, file, function, expression):
        assert rec["class"] == cls, (rec["reason"], rec["evidence"])
        assert reason in (rec["reason"] or "")
        if cls in ("sleepable-proven", "atomic-proven", "assertion"):
            assert (rec["fix"] is None) == reason.startswith("no swap: "), rec["reason"]


def test_some_proven(doc):
    assert sum(r["class"] in ("sleepable-proven", "atomic-proven", "caller-gfp", "caller-flag")
               for r in doc["findings"]) >= 2


def test_in_atomic_sites_keep_their_classes_under_all(doc):
    """Issue 11: scanning more predicates must not change the class (or fix) of any in_atomic()
    site; the other predicates' sites only add functions to the graph."""
    default = scan("in_atomic")
    # by place: under all, a drm_can_sleep() call is that predicate's site, not in_atomic()'s
    key = lambda r: (r["file"], r["function"] or r["macro"], r["line"], r["col"])  # noqa: E731
    base = {key(r): (r["class"], r["fix"]) for r in default["findings"]}
    wide = {}
    for r in doc["findings"]:
        if key(r) in base:
            wide.setdefault(key(r), set()).add((r["class"], json.dumps(r["fix"], sort_keys=True)))
    base = {k: {(c, json.dumps(f, sort_keys=True))} for k, (c, f) in base.items()}
    assert set(wide) == set(base)
    assert wide == base


def test_all_predicates_scan_needs_no_keep_going(tmp_path):
    """Issue 14: the tracepoint header outside the scope and the trace event definition in
    sound/firewire are listed, but do not fail the scan."""
    import subprocess
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
    res = subprocess.run([sys.executable, "-m", "atomic_janitor", "scan", "--predicates", "all",
                          "--output", str(tmp_path), "--format", "json"],
                         env=env, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "0 of them in the scope" in res.stdout
    with open(tmp_path / "linux-source-6.1" / "findings.json", encoding="utf-8") as fh:
        doc = json.load(fh)
    reasons = {d["file"]: d["reason"] for d in doc["not_analysed"]}
    assert reasons["sound/firewire/amdtp-stream-trace.h"].startswith("in a trace event definition")


def test_live_bug_gus_stop_voices(doc):
    """Issue 16: snd_gf1_stop_voices() tests !in_interrupt() and sleeps; the PCM trigger
    (STOP) runs it under the stream lock with IRQs off, where in_interrupt() is false."""
    bugs = [r for r in doc["findings"] if r["live_bug"]]
    assert [(r["file"], r["function"]) for r in bugs] == [("sound/isa/gus/gus_reset.c", "snd_gf1_stop_voices")]
    lb = bugs[0]["live_bug"]
    assert lb["when"] == "always"
    assert lb["sleeps"].endswith("msleep_interruptible()")
    assert "PCM trigger" in lb["path"][0] and lb["path"][-1].endswith("snd_gf1_stop_voices()")
    assert not any(r["live_bug"] for r in scan("in_atomic")["findings"])
