"""Each patch of a series compiles: after every patch, `make O=<build> <file>.o` for each C
file it touches, on a pristine hard-linked copy of the tree (qemu-verify's WorkTree).

A file is built under the first configuration of CONFIGS whose .config enables it (the
Makefile/Kconfig symbols qemu-verify's compile stage finds): x86_64 allmodconfig takes
every driver that builds there or under COMPILE_TEST, the cross configurations the arch
drivers (GIC, SDEI on arm64, QDIO on s390, Alchemy MMC on MIPS). Build directories are
kept under ~/.cache/atomic-janitor/patch-compile/ so that only the first run pays for
`make prepare`.
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "verify"))
from verify_support import load  # noqa: E402

QV = load()
from qemu_verify import apply as qv_apply  # noqa: E402
from qemu_verify import build as qv_build  # noqa: E402
from qemu_verify import compile as qv_compile  # noqa: E402
from qemu_verify.common import Log  # noqa: E402

# (name, ARCH, CROSS_COMPILE, config target, Debian package of the compiler)
CONFIGS = [
    ("x86_64-allmodconfig", "x86_64", "", "allmodconfig", None),
    ("arm64-defconfig", "arm64", "aarch64-linux-gnu-", "defconfig", "gcc-aarch64-linux-gnu"),
    ("s390-defconfig", "s390", "s390x-linux-gnu-", "defconfig", "gcc-s390x-linux-gnu"),
    ("mips-db1xxx", "mips", "mips-linux-gnu-", "db1xxx_defconfig", "gcc-mips-linux-gnu"),
]


def cache_root():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "atomic-janitor", "patch-compile")


class Matrix:
    def __init__(self, ksrc, root, jobs=None):
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.log = Log(os.path.join(root, "make.log"))
        self.work = qv_apply.WorkTree(ksrc, os.path.join(root, "work"), self.log)
        self.jobs = jobs or os.cpu_count() or 1
        self._dotconfig = {}
        self._prepared = set()

    def make(self, cfg, *targets, check=True, jobs=None):
        name, arch, cross, _target, _pkg = cfg
        argv = ["make", "-C", self.work.src, f"O={os.path.join(self.root, 'build-' + name)}", f"ARCH={arch}",
                f"-j{jobs or self.jobs}", *([f"CROSS_COMPILE={cross}"] if cross else []), *targets]
        p = subprocess.run(argv, capture_output=True, text=True, errors="replace", check=False)
        self.log.write("$ " + " ".join(argv) + "\n" + p.stdout[-20000:] + p.stderr[-20000:])
        if check and p.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {qv_build.first_error(p.stdout + p.stderr)}")
        return p

    def dotconfig(self, cfg):
        """The configuration's symbols, configuring the build directory on first use."""
        name = cfg[0]
        if name not in self._dotconfig:
            if cfg[4] and shutil.which(cfg[2] + "gcc") is None:
                raise RuntimeError(f"{cfg[2]}gcc missing: apt-get install {cfg[4]} (listed in .ci/packages)")
            path = os.path.join(self.root, "build-" + name, ".config")
            stamp = path + ".aj-target"
            if not (os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == cfg[3]):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                self.make(cfg, cfg[3])
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

    def where(self, rel):
        """(config, [objects]) building the C file rel, or (None, reason)."""
        if not rel.endswith(".c"):
            return None, "not a C file"
        obj = rel[:-2] + ".o"
        syms, _mod = qv_compile.symbols_for_object(self.work.src, obj)
        if not syms:
            return None, "no Makefile rule builds it"
        for cfg in CONFIGS:
            dc = self.dotconfig(cfg)
            if all(dc.get(s, "n") in ("y", "m") for s in syms):
                return cfg, [obj]
        return None, "no configuration of CONFIGS enables " + ", ".join("CONFIG_" + s for s in syms)

    def compile(self, cfg, objs):
        """{obj: (ok, first error or None, warnings)}: the objects rebuilt from scratch."""
        if cfg[0] not in self._prepared:
            self.make(cfg, "prepare")
            self._prepared.add(cfg[0])
        build = os.path.join(self.root, "build-" + cfg[0])
        for o in objs:
            if os.path.exists(os.path.join(build, o)):
                os.unlink(os.path.join(build, o))
        # -j1: on s390 kbuild reaches drivers/s390/ by two paths, and with -j2 a single
        # object is built twice at once (fixdep then fails on the other's .d file).
        p = self.make(cfg, *objs, check=False, jobs=1)
        out = p.stdout + p.stderr
        return {o: (p.returncode == 0 and os.path.exists(os.path.join(build, o)),
                    None if p.returncode == 0 else qv_build.first_error(out),
                    qv_build.warnings_of(out, o[:-2] + ".c")) for o in objs}


def _includes(ksrc, c_file, header):
    with open(os.path.join(ksrc, c_file), encoding="utf-8", errors="replace") as fh:
        return re.search(r'#\s*include\s*[<"]([^>"]*/)?%s[>"]' % re.escape(header), fh.read()) is not None


def compile_series(ksrc, patch_paths, root=None):
    """[{patch, file, config, ok, error, new_warnings}] plus [(file, reason)] not built."""
    m = Matrix(ksrc, root or cache_root())
    m.work.prepare()
    patches = [qv_apply.parse_patch(p, i + 1) for i, p in enumerate(patch_paths)]
    touched = sorted({f for p in patches for f in p.files})
    plan, skipped = {}, []
    for rel in touched:
        if rel.endswith(".h"):
            continue
        cfg, objs = m.where(rel)
        if cfg is None:
            skipped.append((rel, objs))
        else:
            plan[rel] = (cfg, objs)
    # A header (a prototype that gained a parameter) is built by the C files of its own patch
    # that include it; none of them: it is not compile-tested.
    for p in patches:
        for rel in p.files:
            if rel.endswith(".h") and not any(
                    c in plan and _includes(ksrc, c, os.path.basename(rel)) for c in p.files):
                skipped.append((rel, "no compiled C file of its patch includes it"))
    # Warnings of the unpatched files: a patch may not add any.
    base = {}
    for rel, (cfg, objs) in sorted(plan.items()):
        base.update(m.compile(cfg, objs))
    results = []
    for p in patches:
        ok, msg = m.work.apply(p)
        if not ok:
            results.append({"patch": p.name, "file": None, "config": None, "ok": False,
                            "error": f"does not apply: {msg}", "new_warnings": []})
            break
        for rel in p.files:
            if rel not in plan:
                continue
            cfg, objs = plan[rel]
            for o, (good, err, warns) in sorted(m.compile(cfg, objs).items()):
                results.append({"patch": p.name, "file": rel, "config": cfg[0], "ok": good, "error": err,
                                "new_warnings": qv_compile.new_warnings(base[o][2], warns)})
    return results, skipped
