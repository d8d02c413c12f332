"""A module directory that holds several drivers side by side (a vendor's USB and PCIe
variants, each its own module with its own Kbuild makefile, with the same function names):
a call means its own module's definition, so one variant's callers never decide the other's
sites. Without makefiles that say so, it is one module, and every definition counts."""

import json
import os
import shutil

import pytest

from ajtest import run_cli

pytestmark = pytest.mark.skipif(not shutil.which("spatch"), reason="spatch not installed")

CORE = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/slab.h>

void *vdrv_alloc(int n)
{
	return kmalloc(n, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);
}
"""

# a work item's call, with LOCK and UNLOCK lines that _locked() fills in or drops
CALLER = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/spinlock.h>
#include <linux/workqueue.h>

void *vdrv_alloc(int n);
static DEFINE_SPINLOCK(vdrv_lock);
static struct work_struct vdrv_work;

static void vdrv_work_fn(struct work_struct *w)
{
	LOCK
	kfree(vdrv_alloc(16));
	UNLOCK
}

int vdrv_probe(void)
{
	INIT_WORK(&vdrv_work, vdrv_work_fn);
	return 0;
}
"""

# one variant built for two buses, one module: the common caller may mean either
# definition (a build option picks the file)
SHARED_CALLER = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/spinlock.h>
#include <linux/workqueue.h>

void *vdrv_bus_alloc(int n);
static DEFINE_SPINLOCK(vdrv_lock);

void vdrv_poll(void)
{
	spin_lock(&vdrv_lock);
	kfree(vdrv_bus_alloc(16));
	spin_unlock(&vdrv_lock);
}

/* the poller runs (a caller nothing names would be on no path) */
static struct work_struct vdrv_poll_work;

static void vdrv_poll_fn(struct work_struct *w)
{
	vdrv_poll();
}

int vdrv_poll_init(void)
{
	INIT_WORK(&vdrv_poll_work, vdrv_poll_fn);
	return 0;
}
"""

BUS = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/slab.h>

void *vdrv_bus_alloc(int n)
{
	return kmalloc(n, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);
}

static struct work_struct vdrv_bus_work;

static void vdrv_bus_work_fn(struct work_struct *w)
{
	kfree(vdrv_bus_alloc(16));
}

int vdrv_bus_probe(void)
{
	INIT_WORK(&vdrv_bus_work, vdrv_bus_work_fn);
	return 0;
}
"""


HDR = """\
struct vdrv_ops {
	void *(*get)(int n);
};
"""

OPS = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "vdrv.h"

static struct vdrv_ops vdrv_the_ops;
static DEFINE_SPINLOCK(vdrv_ops_lock);
static struct work_struct vdrv_ops_work;

static void *vdrv_get(int n)
{
	return kmalloc(n, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);
}

static void vdrv_ops_work_fn(struct work_struct *w)
{
	struct vdrv_ops *ops = &vdrv_the_ops;

	LOCK
	kfree(ops->get(16));
	UNLOCK
}

int vdrv_ops_probe(void)
{
	struct vdrv_ops *ops = &vdrv_the_ops;

	ops->get = vdrv_get;
	INIT_WORK(&vdrv_ops_work, vdrv_ops_work_fn);
	return 0;
}
"""


def _locked(text, lock):
    """text with its LOCK/UNLOCK lines taking spinlock `lock`, or without them (None)."""
    take, drop = (f"\tspin_lock(&{lock});\n", f"\tspin_unlock(&{lock});\n") if lock else ("", "")
    return text.replace("\tUNLOCK\n", drop).replace("\tLOCK\n", take)


def _write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _scan(tmp_path, makefiles):
    repo = str(tmp_path / "vendor-repo")
    _write(repo, "usb/vdrv/vdrv_core.c", CORE)
    _write(repo, "usb/vdrv/vdrv_main.c", _locked(CALLER, None))
    _write(repo, "pcie/vdrv/vdrv_core.c", CORE)
    _write(repo, "pcie/vdrv/vdrv_main.c", _locked(CALLER, "vdrv_lock"))
    _write(repo, "sdio/vdrv_poll.c", SHARED_CALLER)
    _write(repo, "sdio/bus_a/vdrv_bus.c", BUS)
    _write(repo, "sdio/bus_b/vdrv_bus.c", BUS)
    _write(repo, "usb/vdrv/vdrv.h", HDR)
    _write(repo, "usb/vdrv/vdrv_ops.c", _locked(OPS, None))
    _write(repo, "pcie/vdrv/vdrv.h", HDR)
    _write(repo, "pcie/vdrv/vdrv_ops.c", _locked(OPS, "vdrv_ops_lock"))
    if makefiles:
        _write(repo, "usb/vdrv/Makefile", "obj-m += vdrv_usb.o\nvdrv_usb-y := vdrv_core.o vdrv_main.o\n")
        _write(repo, "pcie/vdrv/Kbuild", "obj-$(CONFIG_VDRV_PCIE) := vdrv_pcie.o\n")
        # one module, its bus chosen by a build option
        _write(repo, "sdio/Makefile", "obj-m += vdrv_sdio.o\nvdrv_sdio-$(CONFIG_BUS_A) += bus_a/vdrv_bus.o\n")
    out = str(tmp_path / "out")
    res = run_cli("scan", "--ksrc", repo, "--output", out, "--keep-going", "--no-cache",
                  env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert res.returncode == 0, res.stderr
    with open(os.path.join(out, "vendor-repo", "findings.json"), encoding="utf-8") as fh:
        return {f["file"]: f for f in json.load(fh)["findings"]}


def test_each_variant_is_decided_by_its_own_callers(tmp_path):
    got = _scan(tmp_path, makefiles=True)
    assert got["usb/vdrv/vdrv_core.c"]["class"] == "sleepable-proven", got["usb/vdrv/vdrv_core.c"]["reason"]
    assert got["pcie/vdrv/vdrv_core.c"]["class"] == "atomic-proven", got["pcie/vdrv/vdrv_core.c"]["reason"]
    # calls through ->get: each module's own struct vdrv_ops
    assert got["usb/vdrv/vdrv_ops.c"]["class"] == "sleepable-proven", got["usb/vdrv/vdrv_ops.c"]["reason"]
    assert got["pcie/vdrv/vdrv_ops.c"]["class"] == "atomic-proven", got["pcie/vdrv/vdrv_ops.c"]["reason"]
    # one module: the locked poller may call either definition, and each has its work item
    for rel in ("sdio/bus_a/vdrv_bus.c", "sdio/bus_b/vdrv_bus.c"):
        assert got[rel]["class"] not in ("sleepable-proven", "atomic-proven"), got[rel]["reason"]


def test_without_makefiles_it_is_one_module(tmp_path):
    got = _scan(tmp_path, makefiles=False)
    for rel in ("usb/vdrv/vdrv_core.c", "pcie/vdrv/vdrv_core.c", "usb/vdrv/vdrv_ops.c", "pcie/vdrv/vdrv_ops.c"):
        assert got[rel]["class"] not in ("sleepable-proven", "atomic-proven"), got[rel]["reason"]
