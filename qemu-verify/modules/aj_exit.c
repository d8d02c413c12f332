// SPDX-License-Identifier: GPL-2.0
/*
 * aj_exit: carry the guest verdict to the host through QEMU's isa-debug-exit device.
 *
 * tinyconfig x86_64 has no CONFIG_ISA and no PCI, so there is no /dev/port: the verdict is
 * written with outb() from here, as late as possible (syscore shutdown runs after every
 * device .shutdown hook, so the late-shutdown i2c case can still fail the run).
 * QEMU exits with (code << 1) | 1.  code: 0 pass, 1 fail, 3 = the init script never set it.
 */
#include <linux/init.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/syscore_ops.h>

static int code = 3;
module_param(code, int, 0644);
MODULE_PARM_DESC(code, "verdict written at shutdown: 0 pass, 1 fail, 3 incomplete");

static int port = 0xf4;
module_param(port, int, 0444);

void aj_exit_fail(void)
{
	code = code == 0 ? 1 : code;
}
EXPORT_SYMBOL_GPL(aj_exit_fail);

static void aj_exit_shutdown(void)
{
	pr_info("# aj-exit: code=%d\n", code);
	outb(code & 0xff, port);
}

static struct syscore_ops aj_exit_ops = {
	.shutdown = aj_exit_shutdown,
};

static int __init aj_exit_init(void)
{
	register_syscore_ops(&aj_exit_ops);
	pr_info("# aj-exit: armed on port 0x%x\n", port);
	return 0;
}
module_init(aj_exit_init);

MODULE_DESCRIPTION("atomic-janitor verify: verdict through isa-debug-exit");
MODULE_LICENSE("GPL");
