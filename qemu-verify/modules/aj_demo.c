// SPDX-License-Identifier: GPL-2.0
/*
 * aj_demo: the article in one module.  Take a spinlock and ask in_atomic().
 *
 * With CONFIG_PREEMPT_COUNT (PREEMPT, DEBUG_ATOMIC_SLEEP, PROVE_LOCKING select it) spin_lock()
 * raises the preempt count and in_atomic() says 1.  Without it (PREEMPT_NONE, PREEMPT_DYNAMIC=n,
 * no lock debugging) spin_lock() leaves the count alone and in_atomic() says 0 while the lock
 * is held: code that sleeps "because in_atomic() said no" sleeps under a spinlock.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>

static int ktap_index = 1;
module_param(ktap_index, int, 0444);

static DEFINE_SPINLOCK(aj_demo_lock);

static int __init aj_demo_init(void)
{
	int seen, expected = IS_ENABLED(CONFIG_PREEMPT_COUNT);

	spin_lock(&aj_demo_lock);
	seen = in_atomic() ? 1 : 0;
	spin_unlock(&aj_demo_lock);

	pr_info("    KTAP version 1\n");
	pr_info("    # Subtest: aj_demo\n");
	pr_info("    1..1\n");
	pr_info("    # aj-demo: in_atomic()=%d under spin_lock(), CONFIG_PREEMPT_COUNT=%c\n",
		seen, expected ? 'y' : 'n');
	pr_info("    %s 1 in_atomic_sees_spinlock_iff_preempt_count\n",
		seen == expected ? "ok" : "not ok");
	pr_info("%s %d aj_demo\n", seen == expected ? "ok" : "not ok", ktap_index);
	return 0;
}
module_init(aj_demo_init);

MODULE_DESCRIPTION("atomic-janitor demo: in_atomic() under a spinlock");
MODULE_LICENSE("GPL");
