// SPDX-License-Identifier: GPL-2.0
/*
 * aj-i2c-stub-test: drive i2c-stub (chip_addr=0x50,0x51, functionality=0x0f7f0000) through
 * /dev/i2c-N with raw ioctls and print a KTAP subtest.  Statically linked, no libi2c.
 *
 * usage: aj-i2c-stub-test <bus number> <ktap index>
 * exit status: 0 all cases passed, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fd, failed, idx;

static void report(int ok, const char *name, const char *why)
{
	idx++;
	if (!ok) {
		failed++;
		printf("    # %s: %s\n", name, why);
	}
	printf("    %s %d %s\n", ok ? "ok" : "not ok", idx, name);
	fflush(stdout);
}

static int smbus(int addr, char rw, unsigned char cmd, int size, union i2c_smbus_data *d)
{
	struct i2c_smbus_ioctl_data args = { .read_write = rw, .command = cmd, .size = size,
					     .data = d };

	if (ioctl(fd, I2C_SLAVE, addr) < 0)
		return -errno;
	return ioctl(fd, I2C_SMBUS, &args) < 0 ? -errno : 0;
}

static int read_byte_data(int addr, int reg)
{
	union i2c_smbus_data d;
	int r = smbus(addr, I2C_SMBUS_READ, reg, I2C_SMBUS_BYTE_DATA, &d);

	return r < 0 ? r : d.byte;
}

static int write_byte_data(int addr, int reg, int val)
{
	union i2c_smbus_data d = { .byte = val };

	return smbus(addr, I2C_SMBUS_WRITE, reg, I2C_SMBUS_BYTE_DATA, &d);
}

int main(int argc, char **argv)
{
	union i2c_smbus_data d;
	unsigned long funcs = 0;
	char path[32], why[128];
	int r, i, ok;

	if (argc < 3) {
		fprintf(stderr, "usage: %s <bus> <ktap index>\n", argv[0]);
		return 2;
	}
	/* stdout is /dev/kmsg: one write a line makes one printk record a line */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("    KTAP version 1\n");
	printf("    # Subtest: i2c_stub_userspace\n");
	printf("    1..9\n");
	snprintf(path, sizeof(path), "/dev/i2c-%s", argv[1]);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		printf("    # open %s: %s\n", path, strerror(errno));
		printf("not ok %s i2c_stub_userspace\n", argv[2]);
		return 1;
	}

	/* 1: I2C_FUNCS: the functionality= we loaded, and no plain I2C */
	ok = ioctl(fd, I2C_FUNCS, &funcs) == 0;
	snprintf(why, sizeof(why), "funcs=0x%08lx", funcs);
	ok = ok && (funcs & I2C_FUNC_SMBUS_QUICK) && (funcs & I2C_FUNC_SMBUS_BYTE) &&
	     (funcs & I2C_FUNC_SMBUS_BYTE_DATA) && (funcs & I2C_FUNC_SMBUS_WORD_DATA) &&
	     (funcs & I2C_FUNC_SMBUS_BLOCK_DATA) && (funcs & I2C_FUNC_SMBUS_I2C_BLOCK) &&
	     !(funcs & I2C_FUNC_I2C);
	report(ok, "i2c_funcs", why);

	/* 2: quick write: 0x50 answers, 0x52 (no chip) does not */
	r = smbus(0x50, I2C_SMBUS_WRITE, 0, I2C_SMBUS_QUICK, NULL);
	i = smbus(0x52, I2C_SMBUS_WRITE, 0, I2C_SMBUS_QUICK, NULL);
	snprintf(why, sizeof(why), "0x50 -> %d, 0x52 -> %d", r, i);
	report(r == 0 && i < 0, "smbus_quick", why);

	/* 3: byte: write sets the pointer, read returns words[pointer] & 0xff */
	r = write_byte_data(0x50, 0x10, 0x5a);
	d.byte = 0;
	if (!r)
		r = smbus(0x50, I2C_SMBUS_WRITE, 0x10, I2C_SMBUS_BYTE, NULL);
	if (!r)
		r = smbus(0x50, I2C_SMBUS_READ, 0, I2C_SMBUS_BYTE, &d);
	snprintf(why, sizeof(why), "ret %d byte 0x%02x", r, d.byte);
	report(r == 0 && d.byte == 0x5a, "smbus_byte", why);

	/* 4: byte data, and the second chip is independent */
	r = write_byte_data(0x50, 0x20, 0xa5);
	i = write_byte_data(0x51, 0x20, 0x3c);
	snprintf(why, sizeof(why), "0x50:0x20=%d 0x51:0x20=%d", read_byte_data(0x50, 0x20),
		 read_byte_data(0x51, 0x20));
	report(!r && !i && read_byte_data(0x50, 0x20) == 0xa5 &&
	       read_byte_data(0x51, 0x20) == 0x3c, "smbus_byte_data", why);

	/* 5: word data */
	d.word = 0x1234;
	r = smbus(0x50, I2C_SMBUS_WRITE, 0x30, I2C_SMBUS_WORD_DATA, &d);
	d.word = 0;
	if (!r)
		r = smbus(0x50, I2C_SMBUS_READ, 0x30, I2C_SMBUS_WORD_DATA, &d);
	snprintf(why, sizeof(why), "ret %d word 0x%04x", r, d.word);
	report(r == 0 && d.word == 0x1234, "smbus_word_data", why);

	/* 6: SMBus block (needs functionality=; first block write allocates, GFP_KERNEL) */
	memset(&d, 0, sizeof(d));
	d.block[0] = 3;
	d.block[1] = 0xde;
	d.block[2] = 0xad;
	d.block[3] = 0x42;
	r = smbus(0x50, I2C_SMBUS_WRITE, 0x60, I2C_SMBUS_BLOCK_DATA, &d);
	memset(&d, 0, sizeof(d));
	if (!r)
		r = smbus(0x50, I2C_SMBUS_READ, 0x60, I2C_SMBUS_BLOCK_DATA, &d);
	snprintf(why, sizeof(why), "ret %d len %d %02x %02x %02x", r, d.block[0], d.block[1],
		 d.block[2], d.block[3]);
	report(r == 0 && d.block[0] == 3 && d.block[1] == 0xde && d.block[2] == 0xad &&
	       d.block[3] == 0x42, "smbus_block_data", why);

	/* 7: I2C block */
	memset(&d, 0, sizeof(d));
	d.block[0] = 4;
	for (i = 1; i <= 4; i++)
		d.block[i] = 0x10 * i;
	r = smbus(0x51, I2C_SMBUS_WRITE, 0x40, I2C_SMBUS_I2C_BLOCK_DATA, &d);
	memset(&d, 0, sizeof(d));
	d.block[0] = 4;
	if (!r)
		r = smbus(0x51, I2C_SMBUS_READ, 0x40, I2C_SMBUS_I2C_BLOCK_DATA, &d);
	snprintf(why, sizeof(why), "ret %d len %d %02x %02x %02x %02x", r, d.block[0],
		 d.block[1], d.block[2], d.block[3], d.block[4]);
	report(r == 0 && d.block[0] == 4 && d.block[1] == 0x10 && d.block[2] == 0x20 &&
	       d.block[3] == 0x30 && d.block[4] == 0x40, "smbus_i2c_block_data", why);

	/* 8: plain I2C_RDWR: i2c-stub has no master_xfer, so -EOPNOTSUPP, cleanly */
	{
		unsigned char buf[1] = { 0 };
		struct i2c_msg msg = { .addr = 0x50, .flags = I2C_M_RD, .len = 1, .buf = buf };
		struct i2c_rdwr_ioctl_data rdwr = { .msgs = &msg, .nmsgs = 1 };

		r = ioctl(fd, I2C_RDWR, &rdwr);
		i = errno;
		snprintf(why, sizeof(why), "ret %d errno %d (%s), want EOPNOTSUPP", r,
			 r < 0 ? i : 0, r < 0 ? strerror(i) : "none");
		report(r < 0 && i == EOPNOTSUPP, "i2c_rdwr_eopnotsupp", why);
	}

	/* 9: the bus still works after the failed I2C_RDWR */
	r = read_byte_data(0x50, 0x20);
	snprintf(why, sizeof(why), "read back %d", r);
	report(r == 0xa5, "bus_usable_after_rdwr", why);

	close(fd);
	printf("%s %s i2c_stub_userspace\n", failed ? "not ok" : "ok", argv[2]);
	return failed ? 1 : 0;
}
