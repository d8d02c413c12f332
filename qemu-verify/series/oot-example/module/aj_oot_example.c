// SPDX-License-Identifier: GPL-2.0
/* An out-of-tree module with the pattern the toolkit removes (KDIR= example for verify). */
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/slab.h>

static noinline void *aj_oot_alloc(size_t len)
{
	return kmalloc(len, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);
}

static int __init aj_oot_init(void)
{
	void *p = aj_oot_alloc(64);

	pr_info("# aj-oot-example: allocated %s\n", p ? "ok" : "nothing");
	kfree(p);
	return 0;
}
module_init(aj_oot_init);

MODULE_DESCRIPTION("atomic-janitor verify: out-of-tree example");
MODULE_LICENSE("GPL");
