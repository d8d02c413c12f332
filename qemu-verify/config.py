"""Stage "config": tinyconfig + fragment(s) + touched-driver symbols, via scripts/config.

After olddefconfig every requested symbol is checked: a symbol that did not survive (missing
dependency, typo, module-only symbol asked as y) fails the stage by name.
"""
import hashlib
import os
import re
import shutil
from typing import Dict, List, Sequence, Tuple

from .common import ARCH, HERE, Log, VerifyError, make_argv, run

FRAGMENT = os.path.join(HERE, "configs", "verify.config")
DEMO_NOCOUNT = os.path.join(HERE, "configs", "demo-nocount.config")

_SET = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


def parse_fragment(text: str) -> Dict[str, str]:
    """CONFIG_FOO=y -> {'FOO': 'y'}; '# CONFIG_FOO is not set' -> {'FOO': 'n'}. Later wins."""
    out: Dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        m = _SET.match(line)
        if m:
            out[m.group(1)[7:]] = m.group(2).strip('"') if m.group(2).startswith('"') else m.group(2)
            continue
        m = _UNSET.match(line)
        if m:
            out[m.group(1)[7:]] = "n"
    return out


def read_fragments(paths: Sequence[str]) -> Dict[str, str]:
    merged: Dict[str, str] = {}
    for p in paths:
        with open(p, encoding="utf-8") as f:
            merged.update(parse_fragment(f.read()))
    return merged


def scripts_config_args(symbols: Dict[str, str]) -> List[str]:
    """Arguments for scripts/config, in a stable order."""
    args: List[str] = []
    for sym in sorted(symbols):
        val = symbols[sym]
        if val == "y":
            args += ["--enable", sym]
        elif val == "m":
            args += ["--module", sym]
        elif val == "n":
            args += ["--disable", sym]
        elif re.fullmatch(r"-?[0-9]+|0x[0-9a-fA-F]+", val):
            args += ["--set-val", sym, val]
        else:
            args += ["--set-str", sym, val]
    return args


def read_dotconfig(path: str) -> Dict[str, str]:
    with open(path, encoding="utf-8") as f:
        return parse_fragment(f.read())


def missing_symbols(wanted: Dict[str, str], have: Dict[str, str]) -> List[str]:
    """Names (with wanted/actual value) of requested symbols that did not survive olddefconfig."""
    bad = []
    for sym in sorted(wanted):
        want = wanted[sym]
        got = have.get(sym, "n")
        if want == got:
            continue
        bad.append(f"CONFIG_{sym}: wanted {want}, got {got if sym in have else 'unset'}")
    return bad


def config_key(work: str, symbols: Dict[str, str]) -> str:
    h = hashlib.sha256()
    with open(os.path.join(work, "Makefile"), "rb") as f:
        h.update(f.read(4096))
    for sym in sorted(symbols):
        h.update(f"{sym}={symbols[sym]}\n".encode())
    return h.hexdigest()[:16]


def _tinyconfig_key(work: str) -> str:
    """What `make tinyconfig` reads: the Kconfig files, the kconfig tool's sources, the tiny
    fragments, and the toolchain (Kconfig asks the compiler and linker what they support)."""
    h = hashlib.sha256(ARCH.encode())
    for argv in (["gcc", "--version"], ["ld", "--version"]):
        p = run(argv)
        h.update(p.stdout.encode())
    picked = []
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel = os.path.relpath(dirpath, work)
        whole = rel == "scripts/kconfig" or rel.startswith("scripts/kconfig/") or \
            rel == "kernel/configs" or rel.endswith("/configs") and rel.startswith("arch/")
        picked += [os.path.join(dirpath, f) for f in sorted(filenames)
                   if f.startswith("Kconfig") or (whole and not f.endswith((".o", ".cmd")))]
    for path in picked:
        h.update(os.path.relpath(path, work).encode() + b"\0")
        with open(path, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:16]


def _tinyconfig(work: str, build: str, jobs: int, log: Log) -> None:
    """build/.config = `make tinyconfig`, remembered beside the build directories: every
    profile and every new driver set starts from it, and kbuild's fixed cost of a make call
    here is several seconds. Keyed by everything tinyconfig reads, so a changed tree or
    toolchain runs it again."""
    saved = os.path.join(os.path.dirname(build), f"tinyconfig-{_tinyconfig_key(work)}.config")
    dotconfig = os.path.join(build, ".config")
    if os.path.exists(saved):
        shutil.copyfile(saved, dotconfig)
        log.write(f"# .config = make tinyconfig, reused: {saved}")
        return
    p = run(make_argv(work, build, ["tinyconfig"], jobs), log)
    if p.returncode != 0:
        raise VerifyError("config", "make tinyconfig failed", [f"see {log.path}"],
                          p.stdout.strip().splitlines()[-3:])
    tmp = saved + ".tmp"
    shutil.copyfile(dotconfig, tmp)
    os.replace(tmp, saved)


def configure(work: str, build: str, symbols: Dict[str, str], jobs: int, log: Log,
              force: bool = False) -> Tuple[bool, Dict[str, str]]:
    """Write build/.config = tinyconfig + symbols. Returns (changed, final .config symbols).

    Skips everything when the same request produced the current .config (warm runs)."""
    os.makedirs(build, exist_ok=True)
    stamp = os.path.join(build, ".aj-config-key")
    key = config_key(work, symbols)
    dotconfig = os.path.join(build, ".config")
    if not force and os.path.exists(dotconfig) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read().strip() == key:
                return False, read_dotconfig(dotconfig)
    if os.path.exists(stamp):
        os.unlink(stamp)
    _tinyconfig(work, build, jobs, log)
    p = run([os.path.join(work, "scripts", "config"), "--file", dotconfig,
             *scripts_config_args(symbols)], log)
    if p.returncode != 0:
        raise VerifyError("config", "scripts/config failed", [f"see {log.path}"])
    p = run(make_argv(work, build, ["olddefconfig"], jobs), log)
    if p.returncode != 0:
        raise VerifyError("config", "make olddefconfig failed", [f"see {log.path}"])
    have = read_dotconfig(dotconfig)
    bad = missing_symbols(symbols, have)
    if bad:
        raise VerifyError(
            "config", f"{len(bad)} requested symbol(s) did not survive olddefconfig",
            ["check the dependencies of each symbol (make menuconfig, search with /)",
             f"fragment: {os.path.relpath(FRAGMENT, os.path.dirname(HERE))}"], bad)
    with open(stamp, "w") as f:
        f.write(key + "\n")
    return True, have


__all__ = ["ARCH", "FRAGMENT", "DEMO_NOCOUNT", "parse_fragment", "read_fragments",
           "scripts_config_args", "missing_symbols", "configure", "read_dotconfig"]
