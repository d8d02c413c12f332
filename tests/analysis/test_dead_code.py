"""A module directory's function that nothing names is on no path (vendor drivers keep
much dead code): its call of a site does not block a proof. It is dead only when the search
settles it: not exported, named by no file of the directory, its assembly included, and
buildable by no paste (the directory's own `##`, a kernel header's fragment with a word of
the directory, a macro that pastes its arguments). Each near miss keeps the site unknown."""

import json
import os
import shutil

import pytest

from ajtest import run_cli

pytestmark = pytest.mark.skipif(not shutil.which("spatch"), reason="spatch not installed")

CORE = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/slab.h>
#include <linux/workqueue.h>

static struct work_struct vdead_work;

void *vdead_alloc(int n)
{
	return kmalloc(n, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);
}

static void vdead_work_fn(struct work_struct *w)
{
	kfree(vdead_alloc(16));
}

int vdead_probe(void)
{
	INIT_WORK(&vdead_work, vdead_work_fn);
	return 0;
}
"""

# a caller whose own callers are not known: if it ran, the site would be unknown
DEAD = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/spinlock.h>

void *vdead_alloc(int n);
static DEFINE_SPINLOCK(vdead_lock);

void NAME(void)
{
	LOCK
	kfree(vdead_alloc(32));
	UNLOCK
}
"""

LIVE_CALLER = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/workqueue.h>

void vdead_old_dump(void);
static struct work_struct vdead_dump_work;

static void vdead_dump_fn(struct work_struct *w)
{
	vdead_old_dump();
}

int vdead_dump_init(void)
{
	INIT_WORK(&vdead_dump_work, vdead_dump_fn);
	return 0;
}
"""

VARIANTS = {
    # name of the dead caller, extra files: the class of vdead_alloc()'s site
    "dead": ("vdead_old_dump", {}, "sleepable-proven"),
    # dead, under its own lock: the region of a call that never runs is no context
    "dead-locked": ("vdead_old_dump", {}, "sleepable-proven"),
    "exported": ("vdead_old_dump", {"vdead_exp.c": "EXPORT_SYMBOL(vdead_old_dump);\n"}, "manual-review"),
    # exported from another file than its definition, and called by a work item: other
    # modules may call it too
    "exported-live": ("vdead_old_dump", {"vdead_exp.c": "EXPORT_SYMBOL(vdead_old_dump);\n",
                                         "vdead_call.c": LIVE_CALLER}, "manual-review"),
    "own-paste": ("vdead_old_dump", {"vdead_paste.h": "#define VDEAD_CALL(x) vdead_##x()\n"}, "manual-review"),
    "kernel-paste": ("vdead_old_entry", {"vdead_decl.c": "SOME_KERNEL_MACRO(vdead_old);\n"}, "manual-review"),
    "arg-paster": ("vdead_old_dump", {"vdead_cat.c": "int x = __PASTE(vdead_, old_dump)();\n"}, "manual-review"),
    "assembly": ("vdead_old_dump", {"vdead_tramp.S": "\tcall vdead_old_dump\n"}, "manual-review"),
    # its file is #included by another, whose text may call it (not followed here)
    "included": ("vdead_old_dump", {"vdead_all.c": '#include "vdead_old.c"\n'}, "manual-review"),
}


def _scan(tmp_path, name, extra, locked):
    repo = tmp_path / "vdead"
    repo.mkdir()
    (repo / "vdead_core.c").write_text(CORE)
    take, drop = ("\tspin_lock(&vdead_lock);\n", "\tspin_unlock(&vdead_lock);\n") if locked else ("", "")
    (repo / "vdead_old.c").write_text(DEAD.replace("NAME", name).replace("\tLOCK\n", take)
                                      .replace("\tUNLOCK\n", drop))
    for rel, text in extra.items():
        (repo / rel).write_text(text)
    out = tmp_path / "out"
    res = run_cli("scan", "--ksrc", str(repo), "--output", str(out), "--keep-going", "--no-cache",
                  env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert res.returncode == 0, res.stderr
    with open(os.path.join(out, "vdead", "findings.json"), encoding="utf-8") as fh:
        (rec,) = [f for f in json.load(fh)["findings"] if f["function"] == "vdead_alloc"]
    return rec


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_caller_nothing_names_is_on_no_path(tmp_path, variant):
    name, extra, cls = VARIANTS[variant]
    rec = _scan(tmp_path, name, extra, locked=variant.endswith("-locked"))
    assert rec["class"] == cls, rec["reason"]
    if cls == "manual-review":
        assert name in rec["reason"], rec["reason"]


def test_a_site_in_a_function_nothing_names_says_so(tmp_path):
    repo = tmp_path / "vdead"
    repo.mkdir()
    (repo / "vdead_core.c").write_text(CORE.replace("kfree(vdead_alloc(16));", ""))
    out = tmp_path / "out"
    res = run_cli("scan", "--ksrc", str(repo), "--output", str(out), "--keep-going", "--no-cache",
                  env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert res.returncode == 0, res.stderr
    with open(os.path.join(out, "vdead", "findings.json"), encoding="utf-8") as fh:
        (rec,) = json.load(fh)["findings"]
    assert rec["class"] == "manual-review" and rec["fix"] is None
    assert rec["reason"].startswith("vdead_alloc() is never called"), rec["reason"]
