// SPDX-License-Identifier: GPL-2.0
/*
 * aj_ctx: the context recorder of make verify. A kprobe on each patched function counts its
 * hits by the context they ran in, so that verify can hold every hit against the context
 * that the finding claimed (sleepable, atomic, caller-passed).
 *
 *   insmod aj_ctx.ko targets=EVENT=SYMBOL,EVENT=MODULE:SYMBOL,...
 *   echo 1 > /sys/module/aj_ctx/parameters/dump     (prints the counts so far)
 *
 * The handler reads the context of the probed instruction, not its own: on x86 the int3
 * path enters like an NMI (exc_int3() -> irqentry_nmi_enter() adds NMI_OFFSET +
 * HARDIRQ_OFFSET), an ftrace-based probe runs under ftrace_test_recursion_trylock()'s
 * preempt_disable_notrace(), and both are taken back out. The irq state is the one saved
 * in pt_regs. A post handler keeps the probe from being optimized into a jump, whose
 * callback would disable preemption once more. A hit whose count does not carry what the
 * entry path must have added is counted as "unknown", never guessed.
 *
 * Targets in a module that is not loaded yet are armed from the module notifier when it
 * loads (as trace_kprobe does), so the module's init is counted too. The counts are printed
 * once more at device shutdown: devices shut down in the reverse order of their
 * registration, so the dump comes after the shutdown hooks of every module loaded later
 * (aj_i2c_record's late transfer with IRQs off).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/hardirq.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/atomic.h>
#include <linux/platform_device.h>

#define AJ_MAX_TARGETS 64

static char *targets[AJ_MAX_TARGETS];
static int n_targets;
module_param_array(targets, charp, &n_targets, 0444);
MODULE_PARM_DESC(targets, "EVENT=SYMBOL or EVENT=MODULE:SYMBOL, comma separated");

enum aj_ctx_kind {
	AJ_SLEEPABLE,		/* task, preemptible, irqs on, no RCU reader, no bh-off */
	AJ_TASK_ATOMIC,		/* task with preemption, bh or irqs off, or in an RCU reader */
	AJ_SOFTIRQ,
	AJ_HARDIRQ,
	AJ_NMI,
	AJ_UNKNOWN,
	AJ_NKINDS
};

static const char *const aj_kind_name[AJ_NKINDS] = {
	"sleepable", "task_atomic", "softirq", "hardirq", "nmi", "unknown"
};

struct aj_target {
	struct kprobe kp;
	char event[64];
	char target[MODULE_NAME_LEN + KSYM_NAME_LEN + 2];	/* SYMBOL or MODULE:SYMBOL */
	char module[MODULE_NAME_LEN];	/* "" for vmlinux */
	bool armed;
	int err;
	atomic_t count[AJ_NKINDS];
	atomic_t irqs_off, preempt_off, bh_off, rcu;
	/* one caller per kind, for the report (the first one seen) */
	unsigned long first_caller[AJ_NKINDS];
};

static struct aj_target *aj_targets;
static DEFINE_MUTEX(aj_lock);

static enum aj_ctx_kind aj_classify(struct kprobe *p, struct pt_regs *regs,
				    struct aj_target *t)
{
	unsigned long pc = preempt_count();
	bool irqs_off = regs_irqs_disabled(regs);

	if (kprobe_ftrace(p)) {
		if (!(pc & PREEMPT_MASK))
			return AJ_UNKNOWN;
		pc -= PREEMPT_OFFSET;
	} else {
		if ((pc & NMI_MASK) < NMI_OFFSET || (pc & HARDIRQ_MASK) < HARDIRQ_OFFSET)
			return AJ_UNKNOWN;
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	}
	if (irqs_off)
		atomic_inc(&t->irqs_off);
	if (pc & NMI_MASK)
		return AJ_NMI;
	if (pc & HARDIRQ_MASK)
		return AJ_HARDIRQ;
	if (pc & SOFTIRQ_OFFSET)
		return AJ_SOFTIRQ;
	if (pc & PREEMPT_MASK)
		atomic_inc(&t->preempt_off);
	if (pc & SOFTIRQ_MASK)
		atomic_inc(&t->bh_off);
	if (rcu_preempt_depth())
		atomic_inc(&t->rcu);
	if ((pc & (PREEMPT_MASK | SOFTIRQ_MASK)) || irqs_off || rcu_preempt_depth())
		return AJ_TASK_ATOMIC;
	return AJ_SLEEPABLE;
}

static int aj_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct aj_target *t = container_of(p, struct aj_target, kp);
	enum aj_ctx_kind k = aj_classify(p, regs, t);

	atomic_inc(&t->count[k]);
	/* at the function's first instruction the return address is on top of the stack */
	if (!READ_ONCE(t->first_caller[k]))
		WRITE_ONCE(t->first_caller[k], regs_get_kernel_stack_nth(regs, 0));
	return 0;
}

static void aj_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static int aj_register(struct aj_target *t)
{
	memset(&t->kp, 0, sizeof(t->kp));
	/* "MODULE:SYMBOL" is looked up in that module only (module_kallsyms_lookup_name()) */
	t->kp.symbol_name = t->target;
	t->kp.pre_handler = aj_pre;
	t->kp.post_handler = aj_post;
	t->err = register_kprobe(&t->kp);
	t->armed = !t->err;
	return t->err;
}

static void aj_arm_quiet(struct aj_target *t)
{
	if (!aj_register(t))
		pr_info("# aj-probe: %s %s\n", t->event, t->target);
	else if (t->err == -ENOENT)
		t->err = 0;	/* not loaded yet */
	else
		pr_info("# aj-probe-failed: %s %s err=%d\n", t->event, t->target, t->err);
}

static void aj_arm(struct aj_target *t)
{
	int ret;

	if (t->armed)
		return;
	ret = aj_register(t);
	if (ret) {
		pr_info("# aj-probe-failed: %s %s err=%d\n", t->event, t->target, ret);
		return;
	}
	pr_info("# aj-probe: %s %s\n", t->event, t->target);
}

static void aj_disarm(struct aj_target *t)
{
	if (!t->armed)
		return;
	unregister_kprobe(&t->kp);
	t->armed = false;
}

static void aj_dump_one(struct aj_target *t)
{
	int k, hits = 0;

	for (k = 0; k < AJ_NKINDS; k++)
		hits += atomic_read(&t->count[k]);
	if (!t->armed && !hits) {
		if (!t->err)
			pr_info("# aj-probe-failed: %s %s err=not-loaded\n", t->event, t->target);
		return;
	}
	pr_info("# aj-hits: %s %d\n", t->event, hits);
	pr_info("# aj-ctx: %s hits=%d sleepable=%d task_atomic=%d softirq=%d hardirq=%d nmi=%d unknown=%d irqs_off=%d preempt_off=%d bh_off=%d rcu=%d\n",
		t->event, hits, atomic_read(&t->count[AJ_SLEEPABLE]),
		atomic_read(&t->count[AJ_TASK_ATOMIC]), atomic_read(&t->count[AJ_SOFTIRQ]),
		atomic_read(&t->count[AJ_HARDIRQ]), atomic_read(&t->count[AJ_NMI]),
		atomic_read(&t->count[AJ_UNKNOWN]), atomic_read(&t->irqs_off),
		atomic_read(&t->preempt_off), atomic_read(&t->bh_off), atomic_read(&t->rcu));
	for (k = 0; k < AJ_NKINDS; k++) {
		unsigned long c = READ_ONCE(t->first_caller[k]);

		if (c)
			pr_info("# aj-ctx-caller: %s %s %pS\n", t->event, aj_kind_name[k],
				(void *)c);
	}
}

static void aj_dump_all(void)
{
	int i;

	mutex_lock(&aj_lock);
	for (i = 0; i < n_targets; i++)
		aj_dump_one(&aj_targets[i]);
	mutex_unlock(&aj_lock);
}

static int aj_dump_set(const char *val, const struct kernel_param *kp)
{
	aj_dump_all();
	return 0;
}

static const struct kernel_param_ops aj_dump_ops = {
	.set = aj_dump_set,
	.get = param_get_int,
};
static int aj_dump_dummy;
module_param_cb(dump, &aj_dump_ops, &aj_dump_dummy, 0644);
MODULE_PARM_DESC(dump, "write anything: print the counts so far");

static int aj_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;
	int i;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&aj_lock);
	for (i = 0; i < n_targets; i++) {
		struct aj_target *t = &aj_targets[i];

		if (!t->module[0] || strcmp(t->module, mod->name))
			continue;
		if (state == MODULE_STATE_COMING)
			aj_arm(t);
		else
			aj_disarm(t);
	}
	mutex_unlock(&aj_lock);
	return NOTIFY_DONE;
}

static struct notifier_block aj_module_nb = {
	.notifier_call = aj_module_event,
};

static void aj_ctx_shutdown(struct platform_device *pdev)
{
	aj_dump_all();
}

static struct platform_driver aj_ctx_driver = {
	.driver = { .name = "aj-ctx-dump" },
	.shutdown = aj_ctx_shutdown,
};

static struct platform_device *aj_ctx_pdev;

static int __init aj_ctx_init(void)
{
	int i, k, ret;

	aj_targets = kcalloc(n_targets ?: 1, sizeof(*aj_targets), GFP_KERNEL);
	if (!aj_targets)
		return -ENOMEM;
	for (i = 0; i < n_targets; i++) {
		struct aj_target *t = &aj_targets[i];
		const char *eq = strchr(targets[i], '=');
		const char *colon;

		if (!eq || eq == targets[i] || !eq[1]) {
			pr_err("aj_ctx: target %s is not EVENT=SYMBOL\n", targets[i]);
			kfree(aj_targets);
			return -EINVAL;
		}
		strscpy(t->event, targets[i], min_t(size_t, eq - targets[i] + 1, sizeof(t->event)));
		strscpy(t->target, eq + 1, sizeof(t->target));
		colon = strchr(t->target, ':');
		if (colon)
			strscpy(t->module, t->target,
				min_t(size_t, colon - t->target + 1, sizeof(t->module)));
		for (k = 0; k < AJ_NKINDS; k++)
			atomic_set(&t->count[k], 0);
	}
	ret = register_module_notifier(&aj_module_nb);
	if (ret) {
		kfree(aj_targets);
		return ret;
	}
	mutex_lock(&aj_lock);
	for (i = 0; i < n_targets; i++) {
		struct aj_target *t = &aj_targets[i];

		/* a module's target that is not loaded yet waits for the notifier */
		if (t->module[0])
			aj_arm_quiet(t);
		else
			aj_arm(t);
	}
	mutex_unlock(&aj_lock);
	/* without the shutdown dump the late hits are lost, but the counts so far are not */
	if (!platform_driver_register(&aj_ctx_driver)) {
		aj_ctx_pdev = platform_device_register_simple("aj-ctx-dump", -1, NULL, 0);
		if (IS_ERR(aj_ctx_pdev)) {
			aj_ctx_pdev = NULL;
			platform_driver_unregister(&aj_ctx_driver);
			pr_info("# aj: aj_ctx has no shutdown dump\n");
		}
	}
	return 0;
}

static void __exit aj_ctx_exit(void)
{
	int i;

	if (aj_ctx_pdev) {
		platform_device_unregister(aj_ctx_pdev);
		platform_driver_unregister(&aj_ctx_driver);
	}
	unregister_module_notifier(&aj_module_nb);
	aj_dump_all();
	for (i = 0; i < n_targets; i++)
		aj_disarm(&aj_targets[i]);
	kfree(aj_targets);
}

module_init(aj_ctx_init);
module_exit(aj_ctx_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("atomic-janitor verify: hit counts of the patched functions by context");
