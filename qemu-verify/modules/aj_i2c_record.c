// SPDX-License-Identifier: GPL-2.0
/*
 * aj_i2c_record: a recording i2c adapter.  It implements both master_xfer and
 * master_xfer_atomic (the 6.1 names; 6.12 calls them xfer/xfer_atomic) and counts which one
 * the i2c core chose, so a test sees the path taken instead of guessing it from splats.
 *
 * KTAP suite "aj_i2c_record" (index ktap_index of the run):
 *  1 process_context_normal_path   i2c_transfer() from insmod: master_xfer
 *  2 spinlock_running_normal_path  i2c_transfer() under spin_lock() while SYSTEM_RUNNING:
 *                                  the core must take the sleeping path (master_xfer) and
 *                                  DEBUG_ATOMIC_SLEEP must say "sleeping function called from
 *                                  invalid context": a caller bug, reported, not hidden.
 *                                  The case declares that splat (aj-expect-splat) around it.
 *  3 late_shutdown_atomic_path     from a platform .shutdown hook (system_state is past
 *                                  SYSTEM_RUNNING, IRQs on) with IRQs disabled by the test:
 *                                  master_xfer_atomic.  Printed at shutdown, with the suite
 *                                  result line; a failure also fails aj_exit's verdict.
 */
#include <linux/atomic.h>
#include <linux/i2c.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>

void aj_exit_fail(void);

static int ktap_index = 1;
module_param(ktap_index, int, 0444);
static bool spinlock_case = true;
module_param(spinlock_case, bool, 0444);
MODULE_PARM_DESC(spinlock_case, "run the splat-provoking case (one per boot)");

static atomic_t n_xfer = ATOMIC_INIT(0);
static atomic_t n_atomic = ATOMIC_INIT(0);
static int failed;
static DEFINE_SPINLOCK(aj_rec_lock);

static int aj_rec_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	atomic_inc(&n_xfer);
	return num;
}

static int aj_rec_xfer_atomic(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	atomic_inc(&n_atomic);
	return num;
}

static u32 aj_rec_func(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C;
}

static const struct i2c_algorithm aj_rec_algo = {
	.master_xfer = aj_rec_xfer,
	.master_xfer_atomic = aj_rec_xfer_atomic,
	.functionality = aj_rec_func,
};

static struct i2c_adapter aj_rec_adap = {
	.owner = THIS_MODULE,
	.algo = &aj_rec_algo,
	.name = "aj-recording-adapter",
};

static int aj_rec_transfer(void)
{
	u8 buf[1] = { 0 };
	struct i2c_msg msg = { .addr = 0x42, .flags = 0, .len = 1, .buf = buf };

	return i2c_transfer(&aj_rec_adap, &msg, 1);
}

/* Run one transfer, report which op ran; returns the path name. */
static const char *aj_rec_path(int ret, int x0, int a0)
{
	int dx = atomic_read(&n_xfer) - x0, da = atomic_read(&n_atomic) - a0;

	if (ret != 1)
		return "error";
	if (dx == 1 && da == 0)
		return "normal";
	if (dx == 0 && da == 1)
		return "atomic";
	return "mixed";
}

static void aj_rec_case(int idx, const char *name, const char *path, const char *want,
			int ret)
{
	bool ok = !strcmp(path, want);

	pr_info("    # %s: path=%s expected=%s ret=%d master_xfer=%d master_xfer_atomic=%d\n",
		name, path, want, ret, atomic_read(&n_xfer), atomic_read(&n_atomic));
	pr_info("    %s %d %s\n", ok ? "ok" : "not ok", idx, name);
	if (!ok)
		failed++;
}

static void aj_rec_shutdown(struct platform_device *pdev)
{
	unsigned long flags;
	int x0 = atomic_read(&n_xfer), a0 = atomic_read(&n_atomic), ret;
	int state = system_state;

	local_irq_save(flags);
	ret = aj_rec_transfer();
	local_irq_restore(flags);

	pr_info("    # late_shutdown_atomic_path: system_state=%d (SYSTEM_RUNNING=%d)\n",
		state, SYSTEM_RUNNING);
	if (state <= SYSTEM_RUNNING)
		aj_rec_case(3, "late_shutdown_atomic_path", "not-late", "atomic", ret);
	else
		aj_rec_case(3, "late_shutdown_atomic_path", aj_rec_path(ret, x0, a0), "atomic",
			    ret);
	pr_info("%s %d aj_i2c_record\n", failed ? "not ok" : "ok", ktap_index);
	if (failed)
		aj_exit_fail();
}

static struct platform_driver aj_rec_driver = {
	.driver = { .name = "aj-late-xfer" },
	.shutdown = aj_rec_shutdown,
};

static struct platform_device *aj_rec_pdev;

static int __init aj_rec_init(void)
{
	int ret, x0, a0;

	pr_info("    KTAP version 1\n");
	pr_info("    # Subtest: aj_i2c_record\n");
	pr_info("    1..3\n");

	ret = i2c_add_adapter(&aj_rec_adap);
	if (ret) {
		pr_info("    # i2c_add_adapter failed: %d\n", ret);
		return ret;
	}

	x0 = atomic_read(&n_xfer);
	a0 = atomic_read(&n_atomic);
	ret = aj_rec_transfer();
	aj_rec_case(1, "process_context_normal_path", aj_rec_path(ret, x0, a0), "normal", ret);

	if (spinlock_case) {
		x0 = atomic_read(&n_xfer);
		a0 = atomic_read(&n_atomic);
		pr_info("    # aj-expect-splat: sleeping-in-atomic,lockdep\n");
		spin_lock(&aj_rec_lock);
		ret = aj_rec_transfer();
		spin_unlock(&aj_rec_lock);
		pr_info("    # aj-expect-splat-end\n");
		aj_rec_case(2, "spinlock_running_normal_path", aj_rec_path(ret, x0, a0), "normal",
			    ret);
	} else {
		pr_info("    ok 2 spinlock_running_normal_path # SKIP spinlock_case=0\n");
	}

	ret = platform_driver_register(&aj_rec_driver);
	if (!ret) {
		aj_rec_pdev = platform_device_register_simple("aj-late-xfer", -1, NULL, 0);
		if (IS_ERR(aj_rec_pdev))
			ret = PTR_ERR(aj_rec_pdev);
	}
	if (ret) {
		pr_info("    # cannot register the shutdown hook: %d\n", ret);
		return ret;
	}
	return 0;
}
module_init(aj_rec_init);

MODULE_DESCRIPTION("atomic-janitor verify: recording i2c adapter (normal vs atomic path)");
MODULE_LICENSE("GPL");
