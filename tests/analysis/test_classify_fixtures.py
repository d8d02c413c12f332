"""The fixture driver tree (tests/fixtures/classify/tree): every easy and adversarial case of
issue 4 with its exact class, fix and evidence chain."""

import os

import pytest

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "classify", "tree")

ATOMIC_GFP = ["fx_under_spin", "fx_under_bh", "fx_under_irqsave", "fx_under_rcu", "fx_under_preempt",
              "fx_timer_fn", "fx_tasklet_fn", "fx_xdir_site", "fx_helper_site", "fx_guard_site",
              "fx_scoped_site", "fx_xmit", "fx_region_first", "fx_region_second",
              "fx_region_h1", "fx_region_h2", "fxm_notify", "fxv_alloc", "fxk_plane_update_locked", "fxn_xmit",
              "fxv_under_macro", "fxv_under_trylock", "fxv_dead_else", "fxv_tmo", "fxk_op_tx", "fxt_cmd_reset", "fxu_detach", "fxu_bprobe", "fxt_io_read", "fxt_slot_start",
              "fxv_rx_tasklet", "fxv_fast_site", "fxw_link_cb", "fxh_tick"]
SLEEP_GFP = {"fx_under_mutex": "GFP_NOIO", "fx_ioctl": "GFP_KERNEL", "fx_deep1": "GFP_KERNEL",
             "fx_many_site": "GFP_KERNEL", "fxm_handler": "GFP_KERNEL",
             "fxm_cmd": "GFP_KERNEL", "fxm_dump": "GFP_KERNEL", "fxm_cursor_set": "GFP_KERNEL",
             "fxk_crtc_flush": "GFP_KERNEL", "fxk_commit_tail": "GFP_KERNEL", "fxk_vendor_set": "GFP_KERNEL",
             "fxk_vendor_dump": "GFP_KERNEL", "fxk_genl_get": "GFP_KERNEL", "fxk_get_drvinfo": "GFP_KERNEL",
             "fxn_ioctl": "GFP_KERNEL", "fxn_own_xmit": "GFP_KERNEL", "fxv_fill": "GFP_KERNEL",
             "fxv_after_bump": "GFP_KERNEL", "fxv_dead_path": "GFP_KERNEL",
             "fxv_zalloc": "GFP_KERNEL", "fxv_in_soup": "GFP_KERNEL", "fxv_alias_zalloc": "GFP_KERNEL",
             "fxv_kick": "GFP_KERNEL", "fxk_enc_detect": "GFP_KERNEL",
             "fxv_evt": "GFP_KERNEL", "fxv_attach": "GFP_KERNEL",
             "fxv_wx_get_name": "GFP_KERNEL", "fxv_wx_get_freq": "GFP_KERNEL", "fxk_op_start": "GFP_KERNEL",
             "fxt_op_fill": "GFP_KERNEL", "fxt_entry_probe": "GFP_KERNEL", "fxv_soup_site": "GFP_KERNEL", "fxv_soup_site_pair": "GFP_KERNEL",
             "fxu_attach": "GFP_KERNEL", "fxu_attach_d": "GFP_KERNEL", "fxt_stats_show": "GFP_KERNEL",
             "fxu_poll": "GFP_KERNEL", "fxt_usb_probe": "GFP_KERNEL", "fxm_event": "GFP_KERNEL",
             "fxk_vendor_nan": "GFP_KERNEL", "fxw_visit_cb": "GFP_KERNEL",
             "fxw_hook_cb": "GFP_KERNEL", "fxh_process": "GFP_KERNEL", "fxh_usb_probe": "GFP_KERNEL",
             "fxh_join_hdl": "GFP_KERNEL"}
SLEEP_BRANCH = ["fx_thread", "fx_work_fn", "fx_thread_fn", "fx_recurse", "fx_probe", "fx_wrap_user2"]
ATOMIC_BRANCH = ["fx_irq", "fx_hardirq"]
MANUAL = {
    "fxh_both_hdl": "address passed to FXH_GEN_BOTH() (argument 1): caller unknown",
    "fxh_usb_pick_b": "callback struct fxh_hooks .hook (context of this callback not known)",
    "fxh_split_work": "no caller chain from an entry point reaches fxh_split_work()",
    "fx_exported": "exported symbol fx_exported()",
    "fx_ptr_cb": "function pointer stored at run time",
    "fx_rpm_site": "pm_runtime_irq_safe()",
    "fx_rpm_rt_site": "pm_runtime_irq_safe()",
    "fx_bad_site": "could not parse",
    "fxv_flush": "could not parse",
    "fxv_zfree_impl": "no caller or registration of fxv_zfree_get()",
    "fxk_op_bss_info_changed": "callback struct ieee80211_ops .bss_info_changed (context of this callback not known)",
    "fxv_wx_priv_set": "iw_handler array fxv_wx_priv_handlers[] used at drivers/fxv/fxv.c:",
    "fxv_later": "address passed to FXV_DEFER() (argument 1): caller unknown",
    "fxv_alias_grab": "address passed to fxv_set_allocator() (argument 2): caller unknown",
    "fxk_enc_mode_valid": "struct drm_encoder_helper_funcs is not defined in the tree",
    "fxv_in_soup_locked": "call of fxv_in_soup_locked() that spatch could not parse",
    "fx_cycle_a": "no caller chain from an entry point",
    "fx_can_sleep": "wrapper fx_can_sleep()",
    "fx_doc_poke": "callback struct fxbus_ops .poke (context of this callback not known)",
    "fx_doc_flush": "callback struct fxbus_ops .flush (context of this callback not known)",
    "fx_doc_poll": "callback struct fxbus_ops .poll (context of this callback not known)",
    "fxm_escaped": "->handle read at drivers/fxm/fxm_core.c:76 (the pointer is passed on)",
    "fxm_saved": "->saved read at drivers/fxm/fxm_core.c:",
    "fxv_slow_site": "call of fxv_slow_site() that spatch could not parse",
    "fxv_after_ifdef": "conflicting callers: fxv_after_ifdef() runs in both contexts; caller fxv_soup_irq()",
    "fxv_tx_tasklet": "address passed to tasklet_init(): its position differs between the #if branches before it",
    "fxm_both": "fxm_both() is called through ->both",
    "fxm_named": "callback struct drm_info_list .name",
    "fx_region_maybe": "conflicting callers",
    "fx_region_maybe_first": "conflicting callers",
    "fxk_vendor_reset": "conflicting callers",
    "fxk_crtc_check": "callback struct drm_crtc_helper_funcs .atomic_check (context of this callback not known)",
    "fxk_queue": "exported symbol fxk_queue() (callers outside the tree)",
    "fxt_escaped": "stored in fxt_esc_tbl[].cb: fxt_esc_tbl used at drivers/fxt/fxt.c:127 (the table is passed on)",
    "fxt_read_out": "stored in fxt_rd_tbl[].cb: fxt_rd_tbl[].cb read at drivers/fxt/fxt.c:111",
    "fxt_shared": "fxt_shared(): address taken",
    "fxt_io_read2": "->read2 read at drivers/fxt/fxt_io.c:48 (the pointer is passed on)",
    "fxt_slot_start2": "->start2 read at drivers/fxt/fxt_slot.c:64 (the pointer is passed on)",
    "fxv_soup_site_held": "call of fxv_soup_site_held() that spatch could not parse",
    "fxv_soup_site_kmap": "call of fxv_soup_site_kmap() that spatch could not parse",
    "fxv_soup_site_in_pair": "call of fxv_soup_site_in_pair() that spatch could not parse",
    "fxv_soup_site_jump": "call of fxv_soup_site_jump() that spatch could not parse",
    "fxt_inc_site": "stored in fxt_inc_tbl[].cb: fxt_tab.c is #included by other files",
    "fxw_kept_cb": "function pointer stored in fxw_saved (drivers/fxw/fxw.c:80): no call through fxw_saved found "
                   "(passed to fxw_keep() at drivers/fxw/fxw.c:117)",
    "fxw_twice_cb": "address passed to fxw_later() (argument 2): caller unknown (passed to fxw_defer() at "
                    "drivers/fxw/fxw.c:118)",
    "fxw_escape_cb": "function pointer stored in fxw_escape (drivers/fxw/fxw.c:120): fxw_escape read at "
                     "drivers/fxw/fxw.c:121 (the pointer is passed on)",
}


def facts(rec):
    return [(e["kind"], e.get("context"), e["fact"]) for e in rec["evidence"]]


@pytest.mark.parametrize("fn", ATOMIC_GFP)
def test_atomic_gfp(fixture_findings, fn):
    rec = fixture_findings[fn]
    assert rec["class"] == "atomic-proven", (rec["reason"], facts(rec))
    assert rec["fix"] == {"strategy": "gfp-constant",
                          "params": {"file": rec["file"], "function": fn, "line": rec["line"], "gfp": "GFP_ATOMIC"}}
    assert rec["confidence"] == "high"
    assert any(e.get("context") == "atomic" for e in rec["evidence"])
    assert rec["evidence"][-1]["kind"] == "site"


@pytest.mark.parametrize("fn,gfp", sorted(SLEEP_GFP.items()))
def test_sleepable_gfp_keeps_its_variant(fixture_findings, fn, gfp):
    rec = fixture_findings[fn]
    assert rec["class"] == "sleepable-proven", rec["reason"]
    assert rec["fix"]["strategy"] == "gfp-constant" and rec["fix"]["params"]["gfp"] == gfp


@pytest.mark.parametrize("fn", SLEEP_BRANCH)
def test_sleepable_keep_branch(fixture_findings, fn):
    rec = fixture_findings[fn]
    assert rec["class"] == "sleepable-proven", rec["reason"]
    assert rec["fix"]["strategy"] == "keep-branch" and rec["fix"]["params"]["keep"] == "sleep"


@pytest.mark.parametrize("fn", ATOMIC_BRANCH)
def test_irq_handlers(fixture_findings, fn):
    rec = fixture_findings[fn]
    assert rec["class"] == "atomic-proven", rec["reason"]
    assert rec["fix"]["params"]["keep"] == "atomic"


@pytest.mark.parametrize("fn,reason", sorted(MANUAL.items()))
def test_manual_review_names_the_blocker(fixture_findings, fn, reason):
    rec = fixture_findings[fn]
    assert rec["class"] == "manual-review"
    assert reason in rec["reason"]
    assert rec["fix"] is None


def test_evidence_chain_three_deep_across_files(fixture_findings):
    rec = fixture_findings["fx_deep1"]
    chain = [(e["file"].split("/")[-1], e["function"], e["kind"]) for e in rec["evidence"]]
    assert chain == [("fx_easy.c", "fx_probe", "registration"), ("fx_easy.c", "fx_probe", "call"),
                     ("fx_chain.c", "fx_deep3", "call"), ("fx_chain.c", "fx_deep2", "call"),
                     ("fx_chain.c", "fx_deep1", "site")]
    assert "platform_driver.probe" in rec["evidence"][0]["fact"]


def test_threaded_irq_primary_vs_thread(fixture_findings):
    assert "primary (hard irq) handler of request_threaded_irq" in fixture_findings["fx_hardirq"]["evidence"][0]["fact"]
    assert "threaded irq handler" in fixture_findings["fx_thread"]["evidence"][0]["fact"]


def test_lock_helper_region(fixture_findings):
    ev = fixture_findings["fx_helper_site"]["evidence"]
    assert ev[0]["kind"] == "region" and "fx_lock()" in ev[0]["fact"]


def test_guards(fixture_findings):
    assert "guard(spinlock)" in fixture_findings["fx_guard_site"]["evidence"][0]["fact"]
    assert "spinlock_irqsave" in fixture_findings["fx_scoped_site"]["evidence"][0]["fact"]


def test_ops_struct_in_another_file(fixture_findings):
    ev = fixture_findings["fx_xmit"]["evidence"][0]
    assert ev["file"].endswith("fx_ops.c") and "ndo_start_xmit" in ev["fact"]


def test_two_contexts_thread_gfp(fixture_findings):
    rec = fixture_findings["fx_two_ctx"]
    assert rec["class"] == "caller-gfp"
    p = rec["fix"]["params"]
    assert p["param"] == "gfp" and p["reuse"] is False
    assert sorted((c["function"], c["gfp"]) for c in p["callers"]) == [("fx_probe", "GFP_KERNEL"),
                                                                        ("fx_timer2_fn", "GFP_ATOMIC")]


def test_two_contexts_thread_flag(fixture_findings):
    rec = fixture_findings["fx_two_ctx_guard"]
    assert rec["class"] == "caller-flag"
    assert sorted((c["function"], c["value"]) for c in rec["fix"]["params"]["callers"]) == [
        ("fx_probe", True), ("fx_timer2_fn", False)]


def test_a_caller_under_a_config_still_passes_its_context(fixture_findings):
    """fx_cfg_timer() calls the site only under #ifdef CONFIG_FX_POLL: where it is compiled
    it passes false, and probe passes true (mdp5_smp_dump()'s debugfs caller in 6.1)."""
    rec = fixture_findings["fx_cfg_site"]
    assert rec["class"] == "caller-flag", rec["reason"]
    assert sorted((c["function"], c["value"]) for c in rec["fix"]["params"]["callers"]) == [
        ("fx_cfg_timer", False), ("fx_xmit_probe", True)]


def test_caller_outside_scope(fixture_findings):
    rec = fixture_findings["fx_outside_site"]
    assert rec["class"] == "caller-gfp"
    files = sorted(c["file"] for c in rec["fix"]["params"]["callers"])
    assert files == ["drivers/fx/fx_xmit.c", "net/fxcore/fxcore.c"]


def test_every_finding_classified(fixture_findings):
    for fn, rec in fixture_findings.items():
        assert rec["class"] != "unclassified", fn
        assert rec["confidence"] in ("high", "medium", "low"), fn
        if rec["class"] == "manual-review":
            assert rec["reason"], fn
        for e in rec["evidence"]:
            assert {"file", "line", "fact"} <= set(e), (fn, e)


@pytest.mark.parametrize("fn,cls,quote", [
    ("fx_doc_start", "sleepable-proven", "Must be implemented and can sleep."),
    ("fx_doc_tx", "atomic-proven", "Must be atomic."),
    ("fx_doc_tx_rt", "atomic-proven", "Must be atomic."),
    ("fx_doc_reset", "sleepable-proven", "This callback is called from process context."),
    ("fx_doc_attach", "sleepable-proven", "Called with the fxbus mutex held."),
    ("fx_doc_detect", "sleepable-proven", "Note that the bus core will already hold &fxbus_core.conn_mutex."),
])
def test_context_from_the_subsystems_kernel_doc(fixture_findings, fn, cls, quote):
    """An ops struct the tables do not know: its header's kernel-doc decides, when it says
    one thing; the evidence quotes it and names the header line; confidence is medium."""
    rec = fixture_findings[fn]
    assert rec["class"] == cls, (rec["reason"], facts(rec))
    assert rec["confidence"] == "medium"
    ev = rec["evidence"][0]
    assert ev["kind"] == "documented" and quote in ev["fact"] and "include/fxbus/fxbus.h:" in ev["fact"]
    assert ev["file"].endswith("fx_doc.c")


def test_proof_names_every_direct_caller(fixture_findings):
    """"Every caller is sleepable": the callers the witness chain leaves out are listed too,
    one line per calling function, each with the origin of its own context."""
    ev = fixture_findings["fx_many_site"]["evidence"]
    callers = {e["function"] for e in ev if e["kind"] == "call" and "fx_many_site()" in e["fact"]}
    assert callers == {"fx_deep2", "fx_many_thread"}, [e["fact"] for e in ev]
    also = [e["fact"] for e in ev if "also calls" in e["fact"]]
    assert len(also) == 1 and "sleepable only: " in also[0]
    if also[0].startswith("fx_many_thread()"):
        assert "(lines " in also[0] and "kthread" in also[0]


def test_a_member_call_names_the_store_and_the_call(fixture_findings):
    """MLTA: the chain goes through the call of ->notify, and the other struct's ->notify
    (a different type) is not one of its callers."""
    rec = fixture_findings["fxm_notify"]
    calls = [e for e in rec["evidence"] if e["kind"] == "call"]
    assert [e["fact"] for e in calls] == [
        "fxm_irq() calls fxm_notify() through ->notify (stored at drivers/fxm/fxm_core.c:89)"]
    assert calls[0]["line"] == 61              # dev->notify(dev), under `if (dev->notify)`


def test_a_wrapper_that_passes_the_callback_on_is_followed(fixture_findings):
    """Parameter forwarding: the register function stores its parameter in ->cb (the call
    through ->cb is its caller, the deregister function only compares it); the iterator
    calls its parameter under its own mutex (it is the caller)."""
    link = [e["fact"] for e in fixture_findings["fxw_link_cb"]["evidence"] if e["kind"] == "call"]
    assert link == ["fxw_dispatch() calls fxw_link_cb() through ->cb (stored at drivers/fxw/fxw_evt.c:17; cb holds "
                    "fxw_link_cb(), passed to fxw_event_register() at drivers/fxw/fxw.c:116) with the region open"]
    visit = [(e["function"], e["fact"]) for e in fixture_findings["fxw_visit_cb"]["evidence"] if e["kind"] == "call"]
    assert visit[-1] == ("fxw_for_each", "fxw_for_each() calls fxw_visit_cb() through its parameter fn (passed at "
                                         "drivers/fxw/fxw.c:99)")


def test_a_static_variable_holds_the_callback(fixture_findings):
    """The calls through a file's static variable are its callers: here through a copy of
    an element of a static array into a local of a type name (the store made by a wrapper)."""
    hook = [(e["function"], e["fact"]) for e in fixture_findings["fxw_hook_cb"]["evidence"] if e["kind"] == "call"]
    assert hook[-1] == ("fxw_run_hooks", "fxw_run_hooks() calls fxw_hook_cb() through static fxw_hooks (stored at "
                                         "drivers/fxw/fxw.c:52; fn holds fxw_hook_cb(), passed to fxw_set_hook() at "
                                         "drivers/fxw/fxw.c:119)")


@pytest.mark.parametrize("fn,fact", [
    ("fxn_xmit", "fxn_xmit(): net_device.hard_start_xmit, the legacy member for ndo_start_xmit (BHs disabled, "
                 "tx lock held) (stored by `ndev->hard_start_xmit = fxn_xmit`)"),
    ("fxn_ioctl", "fxn_ioctl(): net_device.do_ioctl, the legacy member for ndo_do_ioctl (process context) "
                  "(stored by `ndev->do_ioctl = &fxn_ioctl`)"),
])
def test_a_legacy_net_device_member_has_its_ndo_context(fixture_findings, fn, fact):
    """`ndev->hard_start_xmit = fn` on a struct net_device (pre-2.6.29 members, still set by
    vendor drivers under a version check) is a registration of the ndo_ counterpart."""
    rec = fixture_findings[fn]
    assert [e["fact"] for e in rec["evidence"] if e["kind"] == "registration"] == [fact], facts(rec)


def test_a_member_named_like_a_legacy_one_on_the_drivers_own_struct(fixture_findings):
    """The same member name on the driver's own struct is settled by the calls through it
    (a work item), not by net_device's table."""
    rec = fixture_findings["fxn_own_xmit"]
    assert not any("ndo_start_xmit" in e["fact"] for e in rec["evidence"]), facts(rec)
    assert [e["fact"] for e in rec["evidence"] if e["kind"] == "call"] == [
        "fxn_work() calls fxn_own_xmit() through ->hard_start_xmit (stored at drivers/fxn/fxn.c:62)"]


@pytest.mark.parametrize("fn,member,source", [
    ("fxk_crtc_flush", "atomic_flush", "run by the commit tail"),
    ("fxk_commit_tail", "atomic_commit_tail", "commit_work()"),
    ("fxk_vendor_set", "doit", "RTNL and wiphy lock held"),
    ("fxk_vendor_dump", "dumpit", "RTNL held"),
    ("fxk_genl_get", "doit", "cb_lock held"),
    ("fxk_get_drvinfo", "get_drvinfo", "callers hold RTNL"),
])
def test_callbacks_settled_by_the_cores_calling_code(fixture_findings, fn, member, source):
    """DRM helper hooks, cfg80211 vendor commands, generic netlink and ethtool operations:
    the core that calls them is in process context; the evidence says why, at the store."""
    rec = fixture_findings[fn]
    reg = rec["evidence"][0]
    assert reg["kind"] == "registration" and reg["context"] == "sleepable", facts(rec)
    assert source in reg["fact"], reg["fact"]
    with open(os.path.join(FIXTURE, reg["file"]), encoding="utf-8") as fh:
        stored = fh.read().splitlines()[reg["line"] - 1]
    assert f".{member} = {fn}" in stored, stored


def test_a_lock_macro_is_a_lock_helper(fixture_findings):
    """`#define FXV_LOCK(dev) spin_lock(&(dev)->lock)` in the driver's header: spatch does
    not expand it, and a call after it was seen unlocked (sleepable-proven from the work
    item); now its call opens the region and the evidence names it."""
    ev = [e["fact"] for e in fixture_findings["fxv_under_macro"]["evidence"]]
    assert ev[0] == "fxv_work_macro() takes FXV_LOCK()", ev


def test_a_lock_held_inside_a_settled_callback_still_wins(fixture_findings):
    """fxk_plane_update() is a sleepable hook, but it calls the site under its own spinlock:
    atomic-proven, and the in_atomic() guess there is a live bug (no preempt count sees it)."""
    rec = fixture_findings["fxk_plane_update_locked"]
    assert rec["live_bug"], rec
    assert any(e.get("context") == "atomic" and "spin_lock_irqsave" in e["fact"] for e in rec["evidence"]), facts(rec)


@pytest.fixture(scope="module")
def fxk_all(tmp_path_factory):
    """fxk with PREDICATES=all: the assertions use irqs_disabled() and preemptible()."""
    import json
    import subprocess
    import sys
    out = tmp_path_factory.mktemp("fxk-all")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "scripts"),
               XDG_CACHE_HOME=str(out / "cache"))
    res = subprocess.run([sys.executable, "-m", "atomic_janitor", "scan", "--ksrc", FIXTURE, "--scope", "drivers/fxk",
                          "--predicates", "all", "--output", str(out), "--keep-going", "--no-cache"],
                         env=env, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    with open(out / "tree" / "findings.json", encoding="utf-8") as fh:
        return {f["function"]: f for f in json.load(fh)["findings"] if f["file"].endswith("fxk_assert.c")}


@pytest.mark.parametrize("fn,swapped,why", [
    ("fxk_tick", False, "hard irq handler (request_irq); genirq runs it with IRQs off, and its flags"),
    ("fxk_plain_irq", True, None),        # IRQF_SHARED only: threadirqs/PREEMPT_RT may thread it
    ("fxk_ipi", False, "on_each_cpu callback; kernel/smp.c runs it with IRQs off"),
    ("fxk_ipi_direct", True, None),       # also called directly: the core does not settle it
    ("fxk_early_check", False, "it runs only at init or teardown: fxk_early_check() is __init"),
    ("fxk_hw_check", False, "it runs only at init or teardown: called from fxk_assert_init() (__init, "
                            "drivers/fxk/fxk_assert.c:69); called from fxk_assert_exit() (__exit"),
    ("fxk_hw_check_any", True, None),     # also called from fxk_assert_poll(), at any time
])
def test_assertion_the_kernel_already_guarantees_is_not_swapped(fxk_all, fn, swapped, why):
    """Issue 13: a lockdep swap of a check that can never fire changes nothing worth a patch;
    the finding keeps its class, has no fix, and its reason says what guarantees it."""
    rec = fxk_all[fn]
    assert rec["class"] == "assertion"
    if swapped:
        assert rec["fix"]["strategy"] == "assert-replace", rec["reason"]
    else:
        assert rec["fix"] is None and rec["reason"].startswith("no swap: "), rec["reason"]
        assert why in rec["reason"], rec["reason"]
        assert rec["evidence"][0]["kind"] in ("registration", "section")
