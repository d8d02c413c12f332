// SPDX-License-Identifier: GPL-2.0
/*
 * aj-drain: wait until the console has sent every byte that user space wrote to it.
 *
 * The guest's /init writes to /dev/console through the tty layer, which the 8250 driver
 * drains from its transmit interrupt, while printk() writes the same UART synchronously.
 * A kernel line printed while a user line is still queued lands in the middle of it
 * ("ok 3 aj_d# spinlock_running_normal_path: ...emo"), and the parser loses both. /init
 * runs this before every step whose output comes from the kernel (insmod, the recorder's
 * dump, the reboot with its shutdown hooks), so the two never mix.
 */
#include <termios.h>
#include <unistd.h>

int main(void)
{
	int ret = 0;

	if (isatty(STDOUT_FILENO) && tcdrain(STDOUT_FILENO))
		ret = 1;
	if (isatty(STDERR_FILENO) && tcdrain(STDERR_FILENO))
		ret = 1;
	return ret;
}
