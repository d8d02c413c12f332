"""Where a function's context comes from when nobody calls it directly: registrations.

Each table maps how a function's address is handed to the kernel to the context the kernel
calls it in. Anything not in these tables is an unknown caller (a wrong guess here becomes a
wrong proof, so an entry is only listed when the kernel documents or enforces the context).
"""

ATOMIC, SLEEPABLE, UNKNOWN = "atomic", "sleepable", "unknown"

# callee(...) argument index -> (context, what it is)
CALL_ARGS = {
    ("request_irq", 1): (ATOMIC, "hard irq handler (request_irq)"),
    ("request_any_context_irq", 1): (ATOMIC, "irq handler (request_any_context_irq)"),
    ("request_percpu_irq", 1): (ATOMIC, "per-cpu irq handler"),
    ("request_nmi", 1): (ATOMIC, "NMI handler"),
    ("devm_request_irq", 2): (ATOMIC, "hard irq handler (devm_request_irq)"),
    ("devm_request_any_context_irq", 2): (ATOMIC, "irq handler (devm_request_any_context_irq)"),
    ("request_threaded_irq", 1): (ATOMIC, "primary (hard irq) handler of request_threaded_irq"),
    ("request_threaded_irq", 2): (SLEEPABLE, "threaded irq handler (request_threaded_irq)"),
    ("devm_request_threaded_irq", 2): (ATOMIC, "primary (hard irq) handler of devm_request_threaded_irq"),
    ("devm_request_threaded_irq", 3): (SLEEPABLE, "threaded irq handler (devm_request_threaded_irq)"),
    ("timer_setup", 1): (ATOMIC, "timer callback (timer_setup)"),
    ("timer_setup_on_stack", 1): (ATOMIC, "timer callback (timer_setup_on_stack)"),
    ("setup_timer", 1): (ATOMIC, "timer callback (setup_timer)"),
    ("DEFINE_TIMER", 1): (ATOMIC, "timer callback (DEFINE_TIMER)"),
    ("tasklet_init", 1): (ATOMIC, "tasklet (tasklet_init)"),
    ("tasklet_setup", 1): (ATOMIC, "tasklet (tasklet_setup)"),
    ("DECLARE_TASKLET", 1): (ATOMIC, "tasklet (DECLARE_TASKLET)"),
    ("DECLARE_TASKLET_OLD", 1): (ATOMIC, "tasklet (DECLARE_TASKLET_OLD)"),
    ("tasklet_hrtimer_init", 1): (ATOMIC, "tasklet hrtimer"),
    ("netif_napi_add", 2): (ATOMIC, "NAPI poll (softirq)"),
    ("netif_napi_add_weight", 2): (ATOMIC, "NAPI poll (softirq)"),
    ("netif_napi_add_tx", 2): (ATOMIC, "NAPI poll (softirq)"),
    ("netif_napi_add_tx_weight", 2): (ATOMIC, "NAPI poll (softirq)"),
    ("netif_tx_napi_add", 2): (ATOMIC, "NAPI poll (softirq)"),
    ("INIT_WORK", 1): (SLEEPABLE, "work item (INIT_WORK)"),
    ("INIT_WORK_ONSTACK", 1): (SLEEPABLE, "work item (INIT_WORK_ONSTACK)"),
    ("INIT_DELAYED_WORK", 1): (SLEEPABLE, "delayed work (INIT_DELAYED_WORK)"),
    ("INIT_DELAYED_WORK_ONSTACK", 1): (SLEEPABLE, "delayed work"),
    ("INIT_DEFERRABLE_WORK", 1): (SLEEPABLE, "deferrable work"),
    ("DECLARE_WORK", 1): (SLEEPABLE, "work item (DECLARE_WORK)"),
    ("DECLARE_DELAYED_WORK", 1): (SLEEPABLE, "delayed work (DECLARE_DELAYED_WORK)"),
    ("DECLARE_DEFERRABLE_WORK", 1): (SLEEPABLE, "deferrable work"),
    ("INIT_RCU_WORK", 1): (SLEEPABLE, "rcu work"),
    ("kthread_init_work", 1): (SLEEPABLE, "kthread work"),
    ("kthread_init_delayed_work", 1): (SLEEPABLE, "kthread delayed work"),
    ("kthread_run", 0): (SLEEPABLE, "kthread (kthread_run)"),
    ("kthread_create", 0): (SLEEPABLE, "kthread (kthread_create)"),
    ("kthread_create_on_node", 0): (SLEEPABLE, "kthread (kthread_create_on_node)"),
    ("kthread_create_on_cpu", 0): (SLEEPABLE, "kthread (kthread_create_on_cpu)"),
    ("kthread_run_on_cpu", 0): (SLEEPABLE, "kthread (kthread_run_on_cpu)"),
    ("init_irq_work", 1): (ATOMIC, "irq_work (init_irq_work)"),
    ("IRQ_WORK_INIT", 0): (ATOMIC, "irq_work (IRQ_WORK_INIT)"),
    ("IRQ_WORK_INIT_HARD", 0): (ATOMIC, "irq_work"),
    ("DEFINE_IRQ_WORK", 1): (ATOMIC, "irq_work (DEFINE_IRQ_WORK)"),
    ("smp_call_function", 0): (ATOMIC, "smp_call_function callback"),
    ("smp_call_function_single", 1): (ATOMIC, "smp_call_function_single callback"),
    ("smp_call_function_many", 1): (ATOMIC, "smp_call_function_many callback"),
    ("smp_call_function_any", 1): (ATOMIC, "smp_call_function_any callback"),
    ("on_each_cpu", 0): (ATOMIC, "on_each_cpu callback"),
    ("on_each_cpu_mask", 1): (ATOMIC, "on_each_cpu_mask callback"),
    ("on_each_cpu_cond", 0): (ATOMIC, "on_each_cpu_cond condition"),
    ("on_each_cpu_cond", 1): (ATOMIC, "on_each_cpu_cond callback"),
    ("on_each_cpu_cond_mask", 0): (ATOMIC, "on_each_cpu_cond_mask condition"),
    ("on_each_cpu_cond_mask", 1): (ATOMIC, "on_each_cpu_cond_mask callback"),
    ("INIT_CSD", 1): (ATOMIC, "IPI callback (INIT_CSD)"),
    ("call_rcu", 1): (ATOMIC, "RCU callback (call_rcu)"),
    ("call_rcu_hurry", 1): (ATOMIC, "RCU callback"),
    ("call_srcu", 2): (ATOMIC, "SRCU callback (call_srcu)"),
    ("usb_fill_bulk_urb", 5): (ATOMIC, "URB completion handler"),
    ("usb_fill_int_urb", 5): (ATOMIC, "URB completion handler"),
    ("usb_fill_control_urb", 6): (ATOMIC, "URB completion handler"),
    ("sdio_claim_irq", 1): (SLEEPABLE, "SDIO irq handler (runs in the SDIO irq thread)"),
    # fs/seq_file.c: single_open() makes `show` the seq_operations' show, which seq_read()
    # and seq_lseek() run with the seq_file's mutex held (read()/lseek(): process context)
    ("single_open", 1): (SLEEPABLE, "seq_file show (single_open(): run by seq_read() with m->lock held)"),
    ("single_open_size", 1): (SLEEPABLE, "seq_file show (single_open_size(): run by seq_read())"),
    ("proc_create_single_data", 3): (SLEEPABLE, "seq_file show (proc_create_single_data(): single_open())"),
    ("proc_create_single", 3): (SLEEPABLE, "seq_file show (proc_create_single(): single_open())"),
    ("module_init", 0): (SLEEPABLE, "module_init"),
    ("module_exit", 0): (SLEEPABLE, "module_exit"),
    ("late_initcall", 0): (SLEEPABLE, "initcall"),
    ("subsys_initcall", 0): (SLEEPABLE, "initcall"),
    ("device_initcall", 0): (SLEEPABLE, "initcall"),
    ("fs_initcall", 0): (SLEEPABLE, "initcall"),
    ("arch_initcall", 0): (SLEEPABLE, "initcall"),
    ("core_initcall", 0): (SLEEPABLE, "initcall"),
    ("postcore_initcall", 0): (SLEEPABLE, "initcall"),
    ("rootfs_initcall", 0): (SLEEPABLE, "initcall"),
    ("subsys_initcall_sync", 0): (SLEEPABLE, "initcall"),
    ("late_initcall_sync", 0): (SLEEPABLE, "initcall"),
    ("device_initcall_sync", 0): (SLEEPABLE, "initcall"),
    ("DEVICE_ATTR", 2): (SLEEPABLE, "sysfs show (DEVICE_ATTR)"),
    ("DEVICE_ATTR", 3): (SLEEPABLE, "sysfs store (DEVICE_ATTR)"),
    ("__ATTR", 2): (SLEEPABLE, "sysfs show (__ATTR)"),
    ("__ATTR", 3): (SLEEPABLE, "sysfs store (__ATTR)"),
    ("DRIVER_ATTR", 2): (SLEEPABLE, "sysfs show"),
    ("DRIVER_ATTR", 3): (SLEEPABLE, "sysfs store"),
    ("SENSOR_DEVICE_ATTR", 2): (SLEEPABLE, "sysfs show"),
    ("SENSOR_DEVICE_ATTR", 3): (SLEEPABLE, "sysfs store"),
    ("SET_SYSTEM_SLEEP_PM_OPS", 0): (SLEEPABLE, "system sleep PM callback"),
    ("SET_SYSTEM_SLEEP_PM_OPS", 1): (SLEEPABLE, "system sleep PM callback"),
    ("SYSTEM_SLEEP_PM_OPS", 0): (SLEEPABLE, "system sleep PM callback"),
    ("SYSTEM_SLEEP_PM_OPS", 1): (SLEEPABLE, "system sleep PM callback"),
    ("SET_LATE_SYSTEM_SLEEP_PM_OPS", 0): (SLEEPABLE, "late system sleep PM callback"),
    ("SET_LATE_SYSTEM_SLEEP_PM_OPS", 1): (SLEEPABLE, "late system sleep PM callback"),
    ("SET_NOIRQ_SYSTEM_SLEEP_PM_OPS", 0): (SLEEPABLE, "noirq system sleep PM callback"),
    ("SET_NOIRQ_SYSTEM_SLEEP_PM_OPS", 1): (SLEEPABLE, "noirq system sleep PM callback"),
    ("SIMPLE_DEV_PM_OPS", 1): (SLEEPABLE, "system sleep PM callback"),
    ("SIMPLE_DEV_PM_OPS", 2): (SLEEPABLE, "system sleep PM callback"),
    ("DEFINE_SIMPLE_DEV_PM_OPS", 1): (SLEEPABLE, "system sleep PM callback"),
    ("DEFINE_SIMPLE_DEV_PM_OPS", 2): (SLEEPABLE, "system sleep PM callback"),
}

# Registrations whose callee the core runs with IRQs off, whatever the caller holds:
# kernel/smp.c runs IPI callbacks in the IPI, or locally under local_irq_save()
# (smp_call_function_single(), smp_call_function_many_cond()); their `cond` functions only
# with preemption off. Hard irq handlers too, unless forced threading may run them in a
# thread (kernel/irq/manage.c irq_setup_forced_threading(): not for IRQF_NO_THREAD,
# IRQF_PERCPU or IRQF_ONESHOT; IRQF_TIMER includes IRQF_NO_THREAD), where PREEMPT_RT keeps
# IRQs on: see HARDIRQ_HANDLERS and NOT_THREADED.
IPI_CALLBACKS = frozenset(v[1] for k, v in CALL_ARGS.items()
                          if k[0].startswith(("smp_call_function", "on_each_cpu", "INIT_CSD"))
                          and "condition" not in v[1])
HARDIRQ_HANDLERS = frozenset(v[1] for k, v in CALL_ARGS.items() if "hard irq" in v[1])
NOT_THREADED = ("IRQF_NO_THREAD", "IRQF_PERCPU", "IRQF_ONESHOT", "IRQF_TIMER")
# Runtime-PM callbacks: sleepable unless the driver marks a device pm_runtime_irq_safe().
RUNTIME_PM_ARGS = {("SET_RUNTIME_PM_OPS", i) for i in range(3)} | {("RUNTIME_PM_OPS", i) for i in range(3)} | \
    {("DEFINE_RUNTIME_DEV_PM_OPS", i) for i in (1, 2, 3)} | {("UNIVERSAL_DEV_PM_OPS", i) for i in (1, 2, 3)}
RUNTIME_PM_FIELDS = {"runtime_suspend", "runtime_resume", "runtime_idle"}

DRIVER_SLEEP_FIELDS = {"probe", "remove", "remove_new", "shutdown", "disconnect", "suspend", "resume",
                       "pre_reset", "post_reset", "reset_resume", "port_probe", "port_remove"}
# *_driver structs whose suspend/resume/disconnect run from an irq handler (UDC drivers).
DRIVER_ATOMIC_TYPES = ("gadget", "composite", "udc")
PM_SLEEP_FIELDS = {"prepare", "complete", "suspend", "resume", "freeze", "thaw", "poweroff", "restore",
                   "suspend_late", "resume_early", "freeze_late", "thaw_early", "poweroff_late",
                   "restore_early", "suspend_noirq", "resume_noirq", "freeze_noirq", "thaw_noirq",
                   "poweroff_noirq", "restore_noirq"}
# (struct type, field) -> context; "*" matches any field.
STRUCT_FIELDS = {
    ("file_operations", "*"): (SLEEPABLE, "file operation"),
    ("proc_ops", "*"): (SLEEPABLE, "proc file operation"),
    ("seq_operations", "*"): (SLEEPABLE, "seq_file operation"),
    # drivers/gpu/drm/drm_debugfs.c, drm_debugfs_open(): single_open(file, node->info_ent->show,
    # node), so show runs as the seq_file show of a debugfs read() (process context).
    ("drm_info_list", "show"): (SLEEPABLE, "DRM debugfs show (seq_file show, read() in process context)"),
    # The legacy cursor hooks have two callers in 6.1, both holding DRM modeset locks
    # (ww_mutex): drm_mode_cursor_common() (drm_plane.c, DRM_IOCTL_MODE_CURSOR) after
    # drm_modeset_lock(), and drm_client_modeset_commit_legacy() after drm_modeset_lock_all().
    ("drm_crtc_funcs", "cursor_set"): (SLEEPABLE, "legacy cursor hook (called with DRM modeset locks held)"),
    ("drm_crtc_funcs", "cursor_set2"): (SLEEPABLE, "legacy cursor hook (called with DRM modeset locks held)"),
    ("drm_crtc_funcs", "cursor_move"): (SLEEPABLE, "legacy cursor hook (called with DRM modeset locks held)"),
    # The atomic commit phase. commit_tail() (drm_atomic_helper.c) runs from commit_work(),
    # a work item, or from drm_atomic_helper_commit() for a blocking commit, and first waits
    # for fences (drm_atomic_helper_wait_for_fences()); it calls ->atomic_commit_tail, or
    # drm_atomic_helper_commit_tail(). In 6.1 the hooks below are called only by the commit
    # helpers (drm_atomic_helper_commit_modeset_disables/_enables, _commit_planes,
    # _commit_planes_on_crtc, _disable_planes_on_crtc), and those only from commit tails and
    # from CRTC atomic_disable hooks, which the commit tail runs. No caller holds a spinlock.
    ("drm_mode_config_helper_funcs", "atomic_commit_tail"):
        (SLEEPABLE, "DRM commit tail (commit_work() or a blocking drm_atomic_helper_commit())"),
    ("drm_crtc_helper_funcs", "atomic_begin"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_crtc_helper_funcs", "atomic_flush"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_crtc_helper_funcs", "atomic_enable"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_crtc_helper_funcs", "atomic_disable"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_plane_helper_funcs", "atomic_update"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_plane_helper_funcs", "atomic_enable"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_plane_helper_funcs", "atomic_disable"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_encoder_helper_funcs", "atomic_enable"): (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    ("drm_encoder_helper_funcs", "atomic_disable"):
        (SLEEPABLE, "DRM atomic commit hook (run by the commit tail)"),
    # drm_atomic_helper_async_commit() has one caller, drm_atomic_helper_commit() (the
    # ->atomic_commit hook, run by drm_atomic_commit() with the modeset locks held, ww_mutex),
    # after drm_atomic_helper_prepare_planes().
    ("drm_plane_helper_funcs", "atomic_async_update"):
        (SLEEPABLE, "DRM async plane update (drm_atomic_helper_commit(), modeset locks held)"),
    # net/wireless/nl80211.c: nl80211_vendor_cmd() is a genetlink doit whose pre_doit takes
    # rtnl_lock() and wiphy_lock() (NL80211_FLAG_NEED_WIPHY); nl80211_vendor_cmd_dump() calls
    # ->dumpit after rtnl_lock().
    ("wiphy_vendor_command", "doit"): (SLEEPABLE, "cfg80211 vendor command (nl80211, RTNL and wiphy lock held)"),
    ("wiphy_vendor_command", "dumpit"): (SLEEPABLE, "cfg80211 vendor dump (nl80211, RTNL held)"),
    # net/netlink/genetlink.c: genl_rcv() holds cb_lock (a rw_semaphore) around the doit;
    # dumps run from netlink_dump() under the socket's cb_mutex.
    ("genl_ops", "doit"): (SLEEPABLE, "generic netlink doit (genl_rcv(), cb_lock held)"),
    ("genl_ops", "dumpit"): (SLEEPABLE, "generic netlink dumpit (netlink_dump(), cb_mutex held)"),
    ("genl_small_ops", "doit"): (SLEEPABLE, "generic netlink doit (genl_rcv(), cb_lock held)"),
    ("genl_small_ops", "dumpit"): (SLEEPABLE, "generic netlink dumpit (netlink_dump(), cb_mutex held)"),
    # include/linux/ethtool.h, struct ethtool_ops: "Callers must hold the RTNL lock."
    ("ethtool_ops", "*"): (SLEEPABLE, "ethtool operation (callers hold RTNL)"),
    ("block_device_operations", "open"): (SLEEPABLE, "block device open"),
    ("block_device_operations", "release"): (SLEEPABLE, "block device release"),
    ("block_device_operations", "ioctl"): (SLEEPABLE, "block device ioctl"),
    ("net_device_ops", "ndo_start_xmit"): (ATOMIC, "ndo_start_xmit (BHs disabled, tx lock held)"),
    ("net_device_ops", "ndo_tx_timeout"): (ATOMIC, "ndo_tx_timeout (watchdog timer)"),
    ("net_device_ops", "ndo_set_rx_mode"): (ATOMIC, "ndo_set_rx_mode (netif_addr_lock_bh held)"),
    ("net_device_ops", "ndo_set_multicast_list"): (ATOMIC, "ndo_set_multicast_list"),
    ("net_device_ops", "ndo_select_queue"): (ATOMIC, "ndo_select_queue (rcu_read_lock_bh held)"),
    ("net_device_ops", "ndo_open"): (SLEEPABLE, "ndo_open (process context, RTNL held)"),
    ("net_device_ops", "ndo_stop"): (SLEEPABLE, "ndo_stop (process context, RTNL held)"),
    ("net_device_ops", "ndo_do_ioctl"): (SLEEPABLE, "ndo_do_ioctl (process context)"),
    # Documentation/networking/netdevices.rst: "ndo_get_stats: Synchronization: rtnl_lock()
    # semaphore, dev_base_lock rwlock, or RCU. Context: atomic (can't sleep under rwlock or RCU)"
    ("net_device_ops", "ndo_get_stats"): (ATOMIC, "ndo_get_stats (dev_base_lock or RCU may be held)"),
    ("net_device_ops", "ndo_eth_ioctl"): (SLEEPABLE, "ndo_eth_ioctl (process context)"),
    ("net_device_ops", "ndo_siocdevprivate"): (SLEEPABLE, "ndo_siocdevprivate (process context)"),
    ("net_device_ops", "ndo_change_mtu"): (SLEEPABLE, "ndo_change_mtu (RTNL held)"),
    ("net_device_ops", "ndo_set_mac_address"): (SLEEPABLE, "ndo_set_mac_address (RTNL held)"),
    ("net_device_ops", "ndo_set_features"): (SLEEPABLE, "ndo_set_features (RTNL held)"),
    ("net_device_ops", "ndo_init"): (SLEEPABLE, "ndo_init (register_netdev)"),
    ("net_device_ops", "ndo_uninit"): (SLEEPABLE, "ndo_uninit"),
    ("cfg80211_ops", "*"): (SLEEPABLE, "cfg80211 operation (process context, wiphy lock)"),
    ("iw_handler_def", "*"): (SLEEPABLE, "wireless extension handler"),
    ("ieee80211_ops", "tx"): (ATOMIC, "mac80211 tx (must be atomic)"),
    ("ieee80211_ops", "set_tim"): (ATOMIC, "mac80211 set_tim (atomic)"),
    ("ieee80211_ops", "sta_notify"): (ATOMIC, "mac80211 sta_notify (atomic)"),
    ("console", "write"): (UNKNOWN, "console->write (console/printk path: any context, incl. panic)"),
    ("consw", "*"): (UNKNOWN, "vt console operation (console/printk path)"),
    ("fb_ops", "fb_open"): (SLEEPABLE, "fb_open"),
    ("fb_ops", "fb_release"): (SLEEPABLE, "fb_release"),
    ("fb_ops", "fb_ioctl"): (SLEEPABLE, "fb_ioctl"),
    ("fb_ops", "fb_compat_ioctl"): (SLEEPABLE, "fb_compat_ioctl"),
    ("fb_ops", "fb_mmap"): (SLEEPABLE, "fb_mmap"),
    ("fb_ops", "*"): (UNKNOWN, "fbdev operation (fbcon console path: may run from printk/panic)"),
    ("irq_chip", "irq_bus_lock"): (SLEEPABLE, "irq_bus_lock (slow bus)"),
    ("irq_chip", "irq_bus_sync_unlock"): (SLEEPABLE, "irq_bus_sync_unlock (slow bus)"),
    ("irq_chip", "*"): (ATOMIC, "irq_chip callback (irq descriptor raw spinlock held)"),
    ("clk_ops", "prepare"): (SLEEPABLE, "clk prepare (prepare mutex)"),
    ("clk_ops", "unprepare"): (SLEEPABLE, "clk unprepare (prepare mutex)"),
    ("clk_ops", "enable"): (ATOMIC, "clk enable (enable spinlock held)"),
    ("clk_ops", "disable"): (ATOMIC, "clk disable (enable spinlock held)"),
    ("snd_pcm_ops", "open"): (SLEEPABLE, "PCM open"),
    ("snd_pcm_ops", "close"): (SLEEPABLE, "PCM close"),
    ("snd_pcm_ops", "hw_params"): (SLEEPABLE, "PCM hw_params"),
    ("snd_pcm_ops", "hw_free"): (SLEEPABLE, "PCM hw_free"),
    ("snd_pcm_ops", "trigger"): (UNKNOWN, "PCM trigger (atomic unless the stream is nonatomic)"),
    ("snd_pcm_ops", "pointer"): (UNKNOWN, "PCM pointer (atomic unless the stream is nonatomic)"),
    ("device_attribute", "show"): (SLEEPABLE, "sysfs show"),
    ("device_attribute", "store"): (SLEEPABLE, "sysfs store"),
    ("kobj_attribute", "show"): (SLEEPABLE, "sysfs show"),
    ("kobj_attribute", "store"): (SLEEPABLE, "sysfs store"),
    ("hrtimer", "function"): (ATOMIC, "hrtimer callback"),
    ("timer_list", "function"): (ATOMIC, "timer callback"),
}

# struct ieee80211_ops, per member as include/net/mac80211.h (6.1) documents it ("Must be
# atomic.", "The callback can sleep.", ...), name:line of its @member paragraph. In a kernel
# tree the same text is read by callback_docs.py; the table lets an out-of-tree mac80211
# driver (a module directory, which holds no kernel headers) use it too. Members whose 6.1
# paragraph says neither, or hedges (bss_info_changed: "unless"), stay unknown.
MAC80211_SLEEPABLE = (
    "start:3599", "stop:3609", "add_interface:3638", "change_interface:3648", "remove_interface:3654",
    "config:3663", "vif_cfg_changed:3678", "link_info_changed:3684", "configure_filter:3696",
    "config_iface_filter:3700", "set_key:3710", "cancel_hw_scan:3751", "sw_scan_start:3767",
    "sw_scan_complete:3773", "get_stats:3778", "set_frag_threshold:3787", "set_rts_threshold:3793",
    "sta_add:3796", "sta_remove:3799", "sta_add_debugfs:3806", "sta_set_txpwr:3816", "sta_state:3820",
    "sta_pre_rcu_remove:3830", "sta_statistics:3848", "conf_tx:3856", "get_tsf:3861", "set_tsf:3866",
    "offset_tsf:3871", "reset_tsf:3877", "tx_last_beacon:3883", "rfkill_poll:3891",
    "set_coverage_class:3896", "testmode_cmd:3902", "testmode_dump:3904", "flush:3906",
    "cancel_remain_on_channel:3936", "set_bitrate_mask:3946", "mgd_protect_tdls_discover:4023",
    "add_chanctx:4032", "remove_chanctx:4034", "change_chanctx:4036", "assign_vif_chanctx:4040",
    "unassign_vif_chanctx:4043", "switch_vif_chanctx:4046", "reconfig_complete:4060", "start_pmsr:4149",
    "abort_pmsr:4150", "set_tid_config:4151", "reset_tid_config:4152", "update_vif_offload:4154",
    "change_vif_links:4178", "change_sta_links:4185",
)
MAC80211_ATOMIC = (
    "tx:3592", "prepare_multicast:3692", "set_tim:3707", "update_tkip_key:3717", "get_key_seq:3782",
    "sta_notify:3811", "sta_rc_update:3837", "sta_rate_tbl_update:3844", "event_callback:3949",
    "allow_buffered_frames:3978", "release_buffered_frames:3953", "ipv6_addr_change:4066",
)
for _e in MAC80211_SLEEPABLE:
    _f, _l = _e.split(":")
    STRUCT_FIELDS[("ieee80211_ops", _f)] = (SLEEPABLE, f"mac80211 operation ieee80211_ops.{_f}: "
                                                       f"\"can sleep\" (include/net/mac80211.h:{_l}, 6.1)")
for _e in MAC80211_ATOMIC:
    _f, _l = _e.split(":")
    STRUCT_FIELDS[("ieee80211_ops", _f)] = (ATOMIC, f"mac80211 operation ieee80211_ops.{_f}: "
                                                    f"\"must be atomic\" (include/net/mac80211.h:{_l}, 6.1)")
# Arrays of a function-pointer typedef that the core calls through, when the array is only
# ever hooked into the core's struct (graph._handler_array checks every use of its name).
# net/wireless/wext-core.c: wext_handle_ioctl() runs the iw_handler_def tables with
# rtnl_lock() held (a mutex: process context); IW_HANDLER(id, fn) is `[IW_IOCTL_IDX(id)] = fn`
# (include/net/iw_handler.h).
HANDLER_ARRAYS = {
    "iw_handler": (SLEEPABLE, "wireless extension handler (iw_handler table; wext-core calls it with the "
                              "RTNL held)"),
}
HANDLER_ARRAY_MACROS = {("IW_HANDLER", 1): "iw_handler"}

# Members of core structs that no core code calls, by their kernel-doc: the calls through
# them are the driver's own, found in its directory as for a driver's own struct type
# (member_calls._candidate_files). (struct, member) -> (the doc line it rests on, the
# subsystem directory whose subdirectories are its drivers).
DRIVER_ONLY_MEMBERS = {
    # include/drm/drm_modeset_helper_vtables.h, struct drm_encoder_helper_funcs, @detect
    # (6.1 users: radeon, amdgpu, nouveau, each from its own connector code)
    ("drm_encoder_helper_funcs", "detect"):
        ("include/drm/drm_modeset_helper_vtables.h: \"It is not used by any helper and therefore has "
         "purely driver-specific semantics\"", "drivers/gpu/drm"),
}

# The members of struct net_device that net_device_ops replaced in 2.6.29, which vendor
# drivers still set under #if LINUX_VERSION_CODE (`ndev->hard_start_xmit = fn`): the core
# called each where it now calls the counterpart.
LEGACY_NETDEV = {
    "open": "ndo_open", "stop": "ndo_stop", "init": "ndo_init", "uninit": "ndo_uninit",
    "hard_start_xmit": "ndo_start_xmit", "tx_timeout": "ndo_tx_timeout",
    "set_multicast_list": "ndo_set_rx_mode", "set_rx_mode": "ndo_set_rx_mode",
    "get_stats": "ndo_get_stats", "do_ioctl": "ndo_do_ioctl", "change_mtu": "ndo_change_mtu",
    "set_mac_address": "ndo_set_mac_address",
}


def member_context(stype, field):
    """(context, what) of a function stored into member `field` of the kernel's struct
    `stype`, by initialiser or by assignment, where the kernel documents it; else None."""
    if stype == "net_device" and field in LEGACY_NETDEV:
        ctx, what = STRUCT_FIELDS[("net_device_ops", LEGACY_NETDEV[field])]
        return ctx, f"net_device.{field}, the legacy member for {what}"
    return STRUCT_FIELDS.get((stype, field)) or STRUCT_FIELDS.get((stype, "*"))


FIELD_ONLY = {
    # fields whose name alone says the context, whatever the (unseen) struct type
    "ndo_start_xmit": (ATOMIC, "ndo_start_xmit (BHs disabled, tx lock held)"),
    "ndo_open": (SLEEPABLE, "ndo_open (process context, RTNL held)"),
    "ndo_stop": (SLEEPABLE, "ndo_stop (process context, RTNL held)"),
}

# Notifier chains: the registration call decides the kind.
NOTIFIER_REG = {
    "atomic_notifier_chain_register": (ATOMIC, "atomic notifier chain"),
    "register_die_notifier": (ATOMIC, "die notifier"),
    "register_keyboard_notifier": (ATOMIC, "keyboard notifier (atomic chain)"),
    "register_inet6addr_notifier": (ATOMIC, "inet6addr notifier (atomic chain)"),
    "register_netevent_notifier": (ATOMIC, "netevent notifier (atomic chain)"),
    "blocking_notifier_chain_register": (SLEEPABLE, "blocking notifier chain"),
    "srcu_notifier_chain_register": (SLEEPABLE, "SRCU notifier chain"),
    "register_reboot_notifier": (SLEEPABLE, "reboot notifier (blocking chain)"),
    "register_pm_notifier": (SLEEPABLE, "PM notifier (blocking chain)"),
    "register_netdevice_notifier": (SLEEPABLE, "netdevice notifier (RTNL held)"),
    "register_inetaddr_notifier": (SLEEPABLE, "inetaddr notifier (blocking chain)"),
    "usb_register_notify": (SLEEPABLE, "USB notifier (blocking chain)"),
    "bus_register_notifier": (SLEEPABLE, "bus notifier (blocking chain)"),
}
PANIC_CHAINS = ("panic_notifier_list",)

# Calls whose presence is evidence (never proof) about the caller's own context.
SLEEP_EVIDENCE = {"might_sleep", "mutex_lock", "mutex_lock_interruptible", "msleep", "msleep_interruptible",
                  "ssleep", "usleep_range", "schedule", "schedule_timeout", "wait_for_completion",
                  "wait_for_completion_timeout", "down", "down_interruptible", "cond_resched",
                  "flush_workqueue", "flush_work", "cancel_work_sync", "cancel_delayed_work_sync",
                  "synchronize_rcu", "synchronize_irq", "vmalloc", "vzalloc", "request_firmware"}
STRONG_SLEEP = {"might_sleep"}
STRONG_ATOMIC = {"lockdep_assert_irqs_disabled", "lockdep_assert_in_irq", "lockdep_assert_preemption_disabled"}
