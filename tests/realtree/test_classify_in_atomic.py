"""Expected classes of every driver-scope in_atomic() site of Debian's 6.1 tree (6.1.192),
keyed on (file, function or macro, expression). Each was read by hand; the reason is why.

Few are provable in 6.1: the easy ones were fixed upstream long ago, and what is left is
reached from exported API, console paths, function pointers or debug-only code. The classifier
must say so with the blocking fact for those, and prove the ones the tree settles."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "analysis"))
from realtree_scan import find, scan  # noqa: E402

pytestmark = pytest.mark.realtree

# (file, function, expression, class, substring of the reason)
EXPECTED = [
    # pm_clk_op_lock() picks spinlock-only vs mutex+spinlock: called from pm_clk_suspend/resume,
    # exported and used as runtime-PM callbacks of pm_runtime_irq_safe() devices (genpd, omap):
    # both contexts really happen. In a whole tree the exports' in-tree callers are followed;
    # genpd stores pm_clk_resume in dev_ops at run time (a core type), and a macro of
    # include/linux/pm_clock.h names it: either blocker may be the one named first.
    ("drivers/base/power/clock_ops.c", "pm_clk_op_lock", "in_atomic() || irqs_disabled()",
     "manual-review", "pm_clk_resume()"),
    # lockdep-only annotation, compiled only with CONFIG_LOCKDEP.
    ("drivers/dma-buf/dma-fence.c", "dma_fence_begin_signalling", "in_atomic()",
     "manual-review", "debug-only code"),
    # atom_op_delay is an entry of the AtomBIOS opcode table, a static array of an untagged
    # struct, called only through opcode_table[op].func() in atom_execute_table_locked();
    # above that, amdgpu's in-tree callers include a function nothing calls, radeon's a
    # member of an untagged struct nested in struct radeon_asic (.display).
    ("drivers/gpu/drm/amd/amdgpu/atom.c", "atom_op_delay", "!drm_can_sleep()", "manual-review",
     "no caller or registration of atomctrl_calculate_voltage_evv_on_sclk()"),
    ("drivers/gpu/drm/radeon/atom.c", "atom_op_delay", "!drm_can_sleep()", "manual-review",
     "callback initialiser .set_backlight_level"),
    # stop_timeout <- intel_engine_stop_cs <- execlists_reset_prepare, stored in engine->reset.prepare.
    ("drivers/gpu/drm/i915/gt/intel_engine_cs.c", "stop_timeout", "in_atomic() || irqs_disabled()",
     "manual-review", "stored at run time"),
    # static inline in a header; one caller sits in with_intel_runtime_pm() stmt;, which parses
    # with the macro file's YACFE_ITERATOR line; another is guc_context_revoke(), stored in
    # struct intel_context_ops, which more than 400 files see.
    ("drivers/gpu/drm/i915/gt/uc/intel_guc.h", "intel_guc_send_busy_loop", "!in_atomic() && !irqs_disabled()",
     "manual-review", "struct intel_context_ops .revoke"),
    # _WAIT_FOR_ATOMIC_CHECK asserts the context IS atomic, only with DRM_I915_DEBUG && PREEMPT_COUNT.
    ("drivers/gpu/drm/i915/i915_utils.h", "_WAIT_FOR_ATOMIC_CHECK", "(ATOMIC) && !in_atomic()",
     "manual-review", "IS atomic"),
    # fb_pan_display runs from fbcon, i.e. from printk/panic: console path.
    ("drivers/gpu/drm/omapdrm/omap_fbdev.c", "omap_fbdev_pan_display", "drm_can_sleep()", "manual-review",
     "console"),
    # qxl_ring_push: callers include DRM helper callbacks (atomic_disable/update) of unknown context.
    ("drivers/gpu/drm/qxl/qxl_cmd.c", "qxl_ring_push", "!drm_can_sleep()", "manual-review", ""),
    # vt console operations (consw): printk can reach them in any context.
    ("drivers/usb/misc/sisusbvga/sisusb_con.c", "sisusb_get_sisusb_lock_and_check", "in_atomic()",
     "manual-review", "console"),
    # gnttab_add_deferred <- gnttab_end_foreign_access (EXPORT_SYMBOL_GPL), any context; among
    # the in-tree callers, pvcalls_front_accept() has no caller of its own.
    ("drivers/xen/grant-table.c", "gnttab_add_deferred", "in_atomic() || irqs_disabled()", "manual-review",
     "no caller or registration"),
    # the wrapper itself: its users are the drm_can_sleep() findings above.
    ("include/drm/drm_util.h", "drm_can_sleep", "in_atomic() || in_dbg_master() || irqs_disabled()",
     "manual-review", "wrapper drm_can_sleep()"),
]


# Proven from the tree alone: (file, function, expression, class, [(caller, value)], a fact).
PROVEN = [
    # mdp5_smp_dump() (two sites) <- mdp5_irq_error_handler(), stored in error_handler->irq at run
    # time and called through ->irq from the msm IRQ handler (atomic), and <- smp_show(), the
    # positional .show of a DRM debugfs drm_info_list (process context, under CONFIG_DEBUG_FS).
    ("drivers/gpu/drm/msm/disp/mdp5/mdp5_smp.c", "mdp5_smp_dump", "!drm_can_sleep()", "caller-flag",
     [("mdp5_irq_error_handler", False), ("smp_show", True)],
     "through ->irq (stored at drivers/gpu/drm/msm/disp/mdp5/mdp5_irq.c:57)"),
    # EXPORT_SYMBOL(drm_flip_work_queue), five in-tree callers: mdp4's update_cursor() under
    # spin_lock_irqsave() (the vblank irq), the msm legacy cursor hooks (modeset locks held),
    # rockchip's .atomic_flush (run by the commit tail) and .atomic_async_update (from
    # drm_atomic_helper_commit(), modeset locks held).
    ("drivers/gpu/drm/drm_flip_work.c", "drm_flip_work_queue", "drm_can_sleep()", "caller-gfp",
     [("mdp4_crtc_cursor_set", "GFP_KERNEL"), ("mdp5_crtc_cursor_set", "GFP_KERNEL"),
      ("update_cursor", "GFP_ATOMIC"), ("vop_crtc_atomic_flush", "GFP_KERNEL"),
      ("vop_plane_atomic_async_update", "GFP_KERNEL")],
     "all in-tree callers are followed"),
    # radeon_legacy_ext_dac_detect() <- radeon_legacy_tv_dac_detect(), a
    # drm_encoder_helper_funcs .detect, which no DRM helper calls (its kernel-doc): radeon's
    # connector .detect hooks call it through ->detect, and those run with
    # drm_mode_config.connection_mutex held (drm_connector_funcs.detect's kernel-doc).
    ("drivers/gpu/drm/radeon/radeon_legacy_encoders.c", "radeon_legacy_ext_dac_detect", "!drm_can_sleep()",
     "sleepable-proven", None, "no core code calls it"),
]


@pytest.fixture(scope="module")
def doc():
    return scan("in_atomic")


@pytest.mark.parametrize("file,function,expression,cls,callers,fact", PROVEN, ids=[e[1] for e in PROVEN])
def test_proven_site(doc, file, function, expression, cls, callers, fact):
    for rec in find(doc, file, function):
        assert rec["class"] == cls, rec["reason"]
        if callers is not None:
            value = "gfp" if cls == "caller-gfp" else "value"
            assert sorted((c["function"], c[value]) for c in rec["fix"]["params"]["callers"]) == callers
        assert any(fact in e["fact"] for e in rec["evidence"]), [e["fact"] for e in rec["evidence"]]


@pytest.mark.parametrize("file,function,expression,cls,reason", EXPECTED,
                         ids=[f"{e[0].split('/')[-1]}:{e[1]}" for e in EXPECTED])
def test_site(doc, file, function, expression, cls, reason):
    for rec in find(doc, file, function, expression):
        assert rec["class"] == cls, (rec["reason"], rec["evidence"])
        assert reason in (rec["reason"] or ""), rec["reason"]
        assert rec["fix"] is None
        assert rec["evidence"], "manual-review must carry the evidence that blocks it"


def test_every_default_site_is_expected(doc):
    """A new in_atomic() site in 6.1 would need reading before it gets an expectation."""
    keys = {(f["file"], f["function"] or f["macro"], f["expression"]) for f in doc["findings"]}
    assert keys == {(e[0], e[1], e[2]) for e in EXPECTED} | {(e[0], e[1], r["expression"]) for e in PROVEN
                                                            for r in find(doc, e[0], e[1])}


def test_nothing_unclassified_nothing_wrongly_proven(doc):
    proven = {(e[0], e[1]) for e in PROVEN if e[3] in ("sleepable-proven", "atomic-proven")}
    for rec in doc["findings"]:
        assert rec["class"] != "unclassified", rec["file"]
        if rec["class"] in ("sleepable-proven", "atomic-proven"):
            assert (rec["file"], rec["function"]) in proven, rec["file"]


@pytest.mark.parametrize("file,caller", [("drivers/gpu/drm/amd/amdgpu/atom.c", "amdgpu_atom_execute_table_locked"),
                                         ("drivers/gpu/drm/radeon/atom.c", "atom_execute_table_locked")])
def test_the_opcode_table_is_followed_to_its_one_call(doc, file, caller):
    """The untagged static table (tables.py): its one call through .func is the caller."""
    (rec,) = find(doc, file, "atom_op_delay")
    facts = [e["fact"] for e in rec["evidence"]]
    assert any(f.startswith(f"{caller}() calls atom_op_delay() through ->func") and
               "the static table opcode_table[], every use of which is in this file" in f for f in facts), facts
