"""Stage "build": bzImage + in-tree modules, the out-of-tree test modules, single objects.

All builds use O=<build dir> outside the repository; a second run reuses it (kbuild rebuilds
only what changed). A failing build is reported with the compiler's first error quoted.
"""
import os
import re
import shutil
from typing import Dict, List, Sequence

from .common import ARCH, HERE, Log, VerifyError, cc_args, make_argv, run

_ERR = re.compile(r"^(\S+:\d+:(\d+:)? (fatal )?error: .*|.*: undefined reference to .*|"
                  r"ERROR: modpost: .*|make\[\d+\]: \*\*\* No rule to make target .*)$")
_WARN = re.compile(r"^(\S+?):(\d+):(\d+:)? warning: (.*)$")


def first_error(output: str) -> str:
    for line in output.splitlines():
        if _ERR.match(line.strip()):
            return line.strip()
    tail = [l for l in output.strip().splitlines() if l.strip()]
    return tail[-1] if tail else "(no output)"


def warnings_of(output: str, rel: str) -> List[str]:
    """Warnings reported for source file rel, line numbers dropped (so unrelated shifts cancel)."""
    out = []
    for line in output.splitlines():
        m = _WARN.match(line.strip())
        if m and (m.group(1).endswith(rel) or rel.endswith(m.group(1))):
            out.append(re.sub(r"\s+", " ", m.group(4)).strip())
    return sorted(out)


def build_kernel(work: str, build: str, jobs: int, log: Log) -> None:
    p = run(make_argv(work, build, ["bzImage", "modules"], jobs), log)
    if p.returncode != 0:
        raise VerifyError("build", "kernel build failed: " + first_error(p.stdout),
                          [f"full log: {log.path}"])


# GCC inlines a static function called once into its caller, and then no symbol is left for
# the context recorder's kprobe. These flags keep the functions that the source did not ask
# to inline out of line, and change nothing else of the generated code's meaning.
OUT_OF_LINE = "-fno-inline-functions-called-once -fno-inline-small-functions -fno-inline-functions"


def out_of_line_line(obj: str) -> str:
    """The kbuild line that builds obj (a path under the build dir) with OUT_OF_LINE."""
    return f"CFLAGS_{os.path.basename(obj)} += {OUT_OF_LINE}"


def kbuild_file(work: str, obj: str) -> str:
    """The file kbuild reads for obj's directory (Kbuild wins over Makefile), relative."""
    d = os.path.dirname(obj)
    kb = os.path.join(d, "Kbuild")
    return kb if os.path.exists(os.path.join(work, kb)) else os.path.join(d, "Makefile")


def bzimage(build: str) -> str:
    return os.path.join(build, "arch", "x86", "boot", "bzImage")


def intree_modules(build: str) -> Dict[str, str]:
    """module name -> .ko path, from modules.order."""
    out = {}
    order = os.path.join(build, "modules.order")
    if os.path.exists(order):
        with open(order) as f:
            for line in f:
                ko = line.strip()
                if ko.endswith(".o"):
                    ko = ko[:-2] + ".ko"
                path = os.path.join(build, ko)
                if os.path.exists(path):
                    out[os.path.basename(ko)[:-3]] = path
    return out


def build_test_modules(build: str, dest: str, jobs: int, log: Log) -> Dict[str, str]:
    """Copy qemu-verify/modules to dest (never build inside the repo) and build them there."""
    src = os.path.join(HERE, "modules")
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if name.endswith((".c", ".h")) or name in ("Kbuild", "Makefile"):
            s, d = os.path.join(src, name), os.path.join(dest, name)
            if not os.path.exists(d) or open(s, "rb").read() != open(d, "rb").read():
                shutil.copyfile(s, d)
    p = run(["make", "-C", build, f"ARCH={ARCH}", f"M={dest}", f"-j{jobs}", *cc_args(), "modules"],
            log)
    if p.returncode != 0:
        raise VerifyError("build", "test modules failed to build: " + first_error(p.stdout),
                          [f"full log: {log.path}"])
    return {n[:-3]: os.path.join(dest, n) for n in sorted(os.listdir(dest)) if n.endswith(".ko")}


def compile_objects(work: str, build: str, objs: Sequence[str], jobs: int, log: Log,
                    w1: bool = True) -> Dict[str, dict]:
    """Build the objects (make O=... W=1 a.o b.o), forcing a recompile; one make call for all
    of them (kbuild's fixed cost dominates), one call per object only when that one fails.

    Returns obj -> {"ok": bool, "warnings": [...], "error": str|None}."""
    res: Dict[str, dict] = {}
    if not objs:
        return res
    for obj in objs:
        out = os.path.join(build, obj)
        if os.path.exists(out):
            os.unlink(out)
    extra = ["W=1"] if w1 else []
    p = run(make_argv(work, build, list(objs), jobs, extra), log)
    if p.returncode == 0 or len(objs) == 1:
        for obj in objs:
            rel = obj[:-2] + ".c"
            ok = p.returncode == 0 and os.path.exists(os.path.join(build, obj))
            res[obj] = {"ok": ok, "warnings": warnings_of(p.stdout, rel),
                        "error": None if ok else first_error(p.stdout)}
        return res
    for obj in objs:
        res.update(compile_objects(work, build, [obj], jobs, log, w1))
    return res


def build_module_dir(build: str, mdir: str, jobs: int, log: Log, w1: bool = True) -> dict:
    """make -C <O dir> M=<mdir> W=1 modules: {"ok", "error", "output", "kos": {name: path}}."""
    p = run(["make", "-C", build, f"ARCH={ARCH}", f"M={mdir}", f"-j{jobs}", *cc_args(),
             *(["W=1"] if w1 else []), "modules"], log)
    kos = {}
    for dirpath, _, files in os.walk(mdir):
        for fn in sorted(files):
            if fn.endswith(".ko"):
                kos[fn[:-3]] = os.path.join(dirpath, fn)
    return {"ok": p.returncode == 0, "error": None if p.returncode == 0 else first_error(p.stdout),
            "output": p.stdout, "kos": kos}


def touch_sources(mdir: str) -> None:
    """Force kbuild to recompile every C file of a module dir (new mtime on a copy we own)."""
    import time as _t
    now = _t.time()
    for dirpath, _, files in os.walk(mdir):
        for fn in files:
            if fn.endswith(".c"):
                os.utime(os.path.join(dirpath, fn), (now, now))
