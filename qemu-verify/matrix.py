"""The compile matrix: a touched C file that the test kernel (x86_64 tinyconfig) cannot build
is built under the first configuration of CONFIGS whose .config enables it: x86_64
allmodconfig takes every driver that builds there or under COMPILE_TEST, the cross
configurations take the architecture drivers (GIC and SDEI on arm64, channel I/O on s390,
Alchemy MMC on MIPS). One build directory per configuration, kept between runs so that only
the first pays for `make <config>` and `make prepare`.

Verify's compile stage and the real-tree patch compile test both build through this class:
one compile test, the same answer in both places."""
import os
import re
import shutil
from typing import Dict, List, Optional, Sequence, Tuple

from . import build as buildmod
from . import compile as compilemod
from .common import Log, run

# (name, ARCH, CROSS_COMPILE, config target, Debian package of the compiler)
CONFIGS = [
    ("x86_64-allmodconfig", "x86_64", "", "allmodconfig", None),
    ("arm64-defconfig", "arm64", "aarch64-linux-gnu-", "defconfig", "gcc-aarch64-linux-gnu"),
    ("s390-defconfig", "s390", "s390x-linux-gnu-", "defconfig", "gcc-s390x-linux-gnu"),
    ("mips-db1xxx", "mips", "mips-linux-gnu-", "db1xxx_defconfig", "gcc-mips-linux-gnu"),
]
Config = Tuple[str, str, str, str, Optional[str]]


class Matrix:
    """Builds objects of the source tree `src` (a work copy: never the user's tree) in
    <root>/build-<config>."""

    def __init__(self, src: str, root: str, log: Log, jobs: Optional[int] = None,
                 w1: bool = True):
        self.src = src
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.log = log
        self.jobs = jobs or os.cpu_count() or 1
        self.w1 = w1
        self._dotconfig: Dict[str, Dict[str, str]] = {}
        self._prepared = set()

    def _make(self, cfg: Config, *targets, check=True, jobs=None):
        name, arch, cross, _target, _pkg = cfg
        argv = ["make", "-C", self.src, f"O={os.path.join(self.root, 'build-' + name)}",
                f"ARCH={arch}", f"-j{jobs or self.jobs}",
                *([f"CROSS_COMPILE={cross}"] if cross else []), *targets]
        p = run(argv, self.log)
        if check and p.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {buildmod.first_error(p.stdout)}")
        return p

    def dotconfig(self, cfg: Config) -> Optional[Dict[str, str]]:
        """The configuration's symbols (configuring its build directory on first use); None
        when its cross compiler is not installed."""
        name = cfg[0]
        if cfg[4] and shutil.which(cfg[2] + "gcc") is None:
            return None
        if name not in self._dotconfig:
            path = os.path.join(self.root, "build-" + name, ".config")
            stamp = path + ".aj-target"
            if not (os.path.exists(path) and os.path.exists(stamp) and
                    open(stamp).read() == cfg[3]):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                self._make(cfg, cfg[3])
                with open(stamp, "w") as fh:
                    fh.write(cfg[3])
            syms = {}
            with open(path) as fh:
                for line in fh:
                    if line.startswith("CONFIG_") and "=" in line:
                        k, v = line.strip().split("=", 1)
                        syms[k[len("CONFIG_"):]] = v
            self._dotconfig[name] = syms
        return self._dotconfig[name]

    def where(self, rel: str):
        """(config, [objects]) building the C file rel, or (None, why not)."""
        if not rel.endswith(".c"):
            return None, "not a C file"
        obj = rel[:-2] + ".o"
        syms, _mod = compilemod.symbols_for_object(self.src, obj)
        if not syms:
            return None, "no Makefile rule builds it"
        missing = []
        for cfg in CONFIGS:
            dc = self.dotconfig(cfg)
            if dc is None:
                missing.append(cfg)
                continue
            if all(dc.get(s, "n") in ("y", "m") for s in syms):
                return cfg, [obj]
        why = "no configuration of the compile matrix enables " + \
            ", ".join("CONFIG_" + s for s in syms)
        if missing:
            why += " (not tried, no cross compiler: apt-get install " + \
                " ".join(c[4] for c in missing) + ")"
        return None, why

    def compile(self, cfg: Config, objs: Sequence[str]) -> Dict[str, tuple]:
        """{obj: (ok, first error or None, warnings)}: the objects rebuilt from scratch, with
        W=1 unless the matrix was made without it; one make call for all of them (a make call
        of allmodconfig costs seconds before it compiles anything)."""
        if cfg[0] not in self._prepared:
            self._make(cfg, "prepare")
            self._prepared.add(cfg[0])
        build = os.path.join(self.root, "build-" + cfg[0])
        for o in objs:
            if os.path.exists(os.path.join(build, o)):
                os.unlink(os.path.join(build, o))
        # -j1: on s390 kbuild reaches drivers/s390/ by two paths, and with -j2 a single
        # object is built twice at once (fixdep then fails on the other's .d file).
        p = self._make(cfg, *(["W=1"] if self.w1 else []), *objs, check=False, jobs=1)
        if p.returncode != 0 and len(objs) > 1:
            # make stops at the first object that fails: each one alone, for its own answer
            out: Dict[str, tuple] = {}
            for o in objs:
                out.update(self.compile(cfg, [o]))
            return out
        return {o: (p.returncode == 0 and os.path.exists(os.path.join(build, o)),
                    None if p.returncode == 0 else buildmod.first_error(p.stdout),
                    buildmod.warnings_of(p.stdout, o[:-2] + ".c")) for o in objs}


def includes(src: str, c_file: str, header: str) -> bool:
    with open(os.path.join(src, c_file), encoding="utf-8", errors="replace") as fh:
        return re.search(r'#\s*include\s*[<"]([^>"]*/)?%s[>"]' % re.escape(header),
                         fh.read()) is not None


def header_builders(src: str, header: str, c_files: Sequence[str]) -> List[str]:
    """The C files of the same patch that include the header: a header is compile-tested
    through them."""
    return [c for c in c_files if c.endswith(".c") and os.path.exists(os.path.join(src, c))
            and includes(src, c, os.path.basename(header))]
