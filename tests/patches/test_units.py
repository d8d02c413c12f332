"""Unit tests of the pieces: condition polarity, kernel-doc, subject prefixes, wrapping."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

from atomic_janitor.patches import fix, maintainers, message  # noqa: E402


def _f(expr, called="in_atomic", true_means="atomic"):
    return {"expression": expr, "called": called, "form_detail": {"true_means": true_means}}


@pytest.mark.parametrize("expr,called,atomic", [
    ("in_atomic()", "in_atomic", True),
    ("!in_atomic()", "in_atomic", False),
    ("in_atomic() || irqs_disabled()", "in_atomic", True),
    ("!in_atomic() && !irqs_disabled()", "in_atomic", False),
    ("drm_can_sleep()", "drm_can_sleep", False),
    ("!drm_can_sleep()", "drm_can_sleep", True),
    ("(in_interrupt())", "in_interrupt", True),
])
def test_polarity(expr, called, atomic):
    assert fix.atomic_when_true(_f(expr, called)) is atomic


@pytest.mark.parametrize("expr", ["in_atomic() && irqs_disabled()", "in_atomic() || foo", "x > 3"])
def test_polarity_refuses_what_it_cannot_tell(expr):
    with pytest.raises(fix.Skip):
        fix.atomic_when_true(_f(expr))


def test_kernel_doc_param_added_after_last_param_once():
    src = ("/**\n * foo - do it\n * @a: first\n * @b: second, which goes on\n *\tfor two lines\n"
           " *\n * Return: 0\n */\nint foo(int a, int b)\n")
    out = fix.add_kernel_doc_param(src, "foo", "gfp", "GFP flags")
    assert out.split("\n")[5] == " * @gfp: GFP flags"
    assert fix.add_kernel_doc_param(out, "foo", "gfp", "GFP flags") == out
    other = src.replace("foo - do it", "bar - other")
    assert fix.add_kernel_doc_param(other, "foo", "gfp", "x") == other


@pytest.mark.parametrize("path,prefix", [
    ("drivers/gpu/drm/radeon/atom.c", "drm/radeon"),
    ("drivers/gpu/drm/drm_flip_work.c", "drm"),
    ("drivers/net/wireless/zydas/zd1211rw/zd_usb.c", "wifi: zd1211rw"),
    ("drivers/i2c/busses/i2c-pxa.c", "i2c: pxa"),
    ("drivers/xen/grant-table.c", "xen/grant-table"),
    ("drivers/scsi/libsas/sas_event.c", "scsi: libsas"),
    ("sound/soc/codecs/wm8994.c", "ASoC: wm8994"),
    ("sound/pci/hda/hda_intel.c", "ALSA: hda"),
    ("drivers/clocksource/timer-atmel-st.c", "clocksource/drivers/timer-atmel-st"),
    ("drivers/irqchip/irq-gic-v4.c", "irqchip/gic-v4"),
    ("drivers/firmware/arm_sdei.c", "firmware: arm_sdei"),
    ("drivers/scsi/scsi_lib.c", "scsi: core"),
    ("drivers/net/wwan/t7xx/t7xx_state_monitor.c", "net: wwan: t7xx"),
    ("drivers/net/ethernet/intel/e1000e/netdev.c", "net: e1000e"),
    ("drivers/infiniband/ulp/srpt/ib_srpt.c", "RDMA/srpt"),
    ("drivers/s390/cio/qdio_main.c", "s390/cio"),
    ("drivers/hv/vmbus_drv.c", "hv: vmbus_drv"),
])
def test_prefix_from_path(path, prefix):
    assert maintainers._from_path(path) == prefix


def test_prefix_driver_from_maintainers_directory_entry():
    """The deepest F: directory names the driver; a file entry or no entry leaves the path."""
    pats = ["drivers/usb/", "drivers/usb/gadget/udc/", "drivers/foo/bar/baz.c"]
    assert maintainers._from_path("drivers/usb/gadget/udc/net2280.c", pats) == "usb: udc"
    assert maintainers._from_path("drivers/usb/gadget/udc/net2280.c") == "usb: gadget"
    assert maintainers._from_path("drivers/foo/bar/baz.c", pats) == "foo: bar"
    assert maintainers._from_path("drivers/foo/qux.c", pats) == "foo: qux"


def test_why_is_fitted_to_the_predicate():
    a = message.why({"in_atomic"}, ["in_atomic"])
    i = message.why({"in_interrupt"}, ["in_interrupt"])
    assert "CONFIG_PREEMPT_COUNT" in a and "CONFIG_PREEMPT_COUNT" not in i
    assert "never sees a held spinlock" in i
    w = message.why({"in_atomic"}, ["drm_can_sleep"])
    assert w.startswith("drm_can_sleep() is a wrapper around in_atomic()")


def test_evidence_wrapped_at_75():
    lines = message.evidence_lines([{"evidence": [{"file": "drivers/a/b.c", "line": 3, "function": "f",
                                                    "fact": "word " * 40}]}])
    assert all(len(l) <= 75 for l in "\n".join(lines).split("\n"))


def _assert_site(with_, callee="WARN_ON_ONCE", expr="!irqs_disabled()", pred="irqs_disabled"):
    finding = {"function": "foo_irq", "expression": expr, "class": "assertion",
               "form_detail": {"callee": callee},
               "fix": {"strategy": "assert-replace", "params": {"function": "foo_irq", "with": with_}},
               "evidence": [{"file": "drivers/x/foo.c", "line": 9, "function": "foo_irq",
                             "fact": f"{pred}() tested here (assertion)", "kind": "site"}]}
    return {"finding": finding, "called": [pred], "predicates": [pred]}


def test_same_condition_assertion_says_what_changes_and_needs_no_chain():
    text = message.body([_assert_site("lockdep_assert_irqs_disabled()")])
    flat = " ".join(text.split())
    assert "Use lockdep_assert_irqs_disabled() in foo_irq() instead of the open-coded " \
        "`WARN_ON_ONCE(!irqs_disabled())`" in flat
    # what the swap changes, said once each (include/linux/lockdep.h in 6.1)
    assert "runs only on kernels with CONFIG_PROVE_LOCKING and is silent otherwise" in flat
    assert "it warns once, as WARN_ON_ONCE() did" in flat
    assert "stops checking after lockdep has reported its first problem" in flat
    assert "PREEMPT_RT" in flat and "costs nothing in production builds" in flat
    assert "How the context was established" not in text
    assert "No calling context had to be established" in flat
    assert "cannot tell whether the code may sleep" not in flat     # not a sleep question


def test_might_sleep_assertion_keeps_its_chain_and_why():
    site = _assert_site("might_sleep()", callee="WARN_ON", expr="in_atomic()", pred="in_atomic")
    text = message.body([site])
    assert "How the context was established:" in text
    assert "CONFIG_PREEMPT_COUNT" in text


def test_assertion_swap_names_how_the_old_check_reported_and_its_subject():
    site = _assert_site("lockdep_assert_irqs_disabled()", callee="WARN_ON")
    flat = " ".join(message.body([site]).split())
    assert "it warns once per call site, where WARN_ON() warned every time" in flat
    pre = _assert_site("lockdep_assert_preemption_disabled()", callee="WARN_ON", expr="preemptible()",
                       pred="preemptible")
    assert "CONFIG_PROVE_LOCKING and CONFIG_PREEMPT_COUNT" in " ".join(message.body([pre]).split())
    assert message.subject("scsi: core", [site]) == "scsi: core: Use lockdep_assert_irqs_disabled()"
    assert message.subject("x", [site, pre]).startswith("x: Replace ")


def test_same_swap_in_two_functions_is_argued_once():
    a = _assert_site("lockdep_assert_irqs_enabled()", expr="irqs_disabled()")
    b = _assert_site("lockdep_assert_irqs_enabled()", expr="irqs_disabled()")
    b["finding"]["fix"]["params"]["function"] = b["finding"]["function"] = "bar_release"
    flat = " ".join(message.body([a, b]).split())
    assert "in foo_irq() and bar_release() instead of" in flat
    assert flat.count("costs nothing in production builds") == 1


def test_live_bug_patch_is_a_bug_fix():
    site = _assert_site("might_sleep()", callee="WARN_ON", expr="!in_interrupt()", pred="in_interrupt")
    site["finding"]["function"] = "snd_gf1_stop_voices"
    site["finding"]["live_bug"] = {
        "when": "always", "sleeps": "sound/isa/gus/gus_reset.c:212 msleep_interruptible()",
        "path": ["sound/isa/gus/gus_pcm.c:831 snd_gf1_pcm_playback_trigger(): PCM trigger",
                 "sound/isa/gus/gus_reset.c:194 snd_gf1_stop_voices()"]}
    assert message.subject("ALSA: gus", [site]) == \
        "ALSA: gus: Fix sleeping in atomic context in snd_gf1_stop_voices()"
    text = message.body([site], signoff="Jane Janitor <jane@example.org>")
    assert text.startswith("snd_gf1_stop_voices() sleeps in atomic context")
    flat = " ".join(text.split())
    assert "on every kernel" in flat and "msleep_interruptible()" in flat
    assert "  sound/isa/gus/gus_pcm.c:831 snd_gf1_pcm_playback_trigger(): PCM trigger" in text
    assert text.rstrip().endswith("Cc: stable@vger.kernel.org\nSigned-off-by: Jane Janitor <jane@example.org>")


def test_subject_is_one_line_for_b4(tmp_path):
    from atomic_janitor.patches import series
    p = tmp_path / "0001.patch"
    p.write_text("From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nDate: Thu, 1 Jan 1970 00:00:00 +0000\n"
                 "Subject: [PATCH 1/1] clocksource/drivers/timer-atmel-st: Use\n lockdep_assert_irqs_disabled()\n"
                 "\nbody\n")
    series._postprocess(str(p), ["M <m@x>"], [])
    text = p.read_text()
    assert "Subject: [PATCH 1/1] clocksource/drivers/timer-atmel-st: Use lockdep_assert_irqs_disabled()\n" \
           "To: M <m@x>\n\nbody" in text
    assert "Date:" not in text


SHORT_SLEEP = """static void fx_wait(struct fx *d)
{
	while (!fx_ready(d)) {
		if (!drm_can_sleep())
			mdelay(1);
		else
			msleep(%d);
	}
}
"""


@pytest.mark.parametrize("ms,added", [
    (1, ["+\tmight_sleep();", "+\tusleep_range(1000, 2000);"]),   # checkpatch: msleep < 20ms
    (20, ["+\tmight_sleep();", "+\tmsleep(20);"]),
])
def test_a_kept_short_msleep_becomes_usleep_range(tmp_path, ms, added):
    src = tmp_path / "drivers" / "fx" / "fx.c"
    src.parent.mkdir(parents=True)
    src.write_text(SHORT_SLEEP % ms)
    finding = {"file": "drivers/fx/fx.c", "function": "fx_wait", "line": 4, "called": "drm_can_sleep",
               "expression": "!drm_can_sleep()", "form_detail": {"true_means": "may-sleep"},
               "fix": {"strategy": "keep-branch", "params": {"file": "drivers/fx/fx.c", "function": "fx_wait",
                                                              "line": 4, "keep": "sleep", "might_sleep": True}}}
    p = fix.plan(finding, str(tmp_path))
    ws = fix.Workspace(str(tmp_path))
    try:
        for op in p.ops:
            fix.run_op(ws, op)
        out = ws.read("drivers/fx/fx.c")
    finally:
        ws.close()
    assert "drm_can_sleep" not in out and "mdelay" not in out
    for line in added:
        assert "\t" + line[2:] in out, out
    assert bool(p.notes) == (ms < 20)
