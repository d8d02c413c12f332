"""The verify run: apply the series to a pristine copy, compile-test each patch, build the
test kernel, boot it in QEMU and read the result (one line per stage, a final verdict).
The commands that drive it are in cli.py; extras.py builds demo, seed and mutant runs on it."""
import dataclasses
import fcntl
import json
import os
import re
import shutil
import sys
import threading
import time
from typing import Dict, List, Optional, Sequence

from . import apply as applymod
from . import boot as bootmod
from . import build as buildmod
from . import claims as claimsmod
from . import compile as compilemod
from . import config as configmod
from . import devices as devmod
from . import initramfs as initmod
from . import matrix as matrixmod
from . import memo as memomod
from . import parse as parsemod
from . import preflight
from . import probes as probemod
from .common import CACHE, DEFAULT_KSRC, HERE, Log, VerifyError, default_jobs

REPO = os.path.dirname(HERE)
SERIES_DIR = os.path.join(HERE, "series")
RESULT_SCHEMA = 1


def tree_name(ksrc: str) -> str:
    return os.path.basename(os.path.realpath(ksrc).rstrip("/"))


def kernel_version(ksrc: str) -> str:
    v = {}
    try:
        with open(os.path.join(ksrc, "Makefile")) as f:
            for line in f.read(2000).splitlines():
                m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL)\s*=\s*(\d+)", line)
                if m:
                    v[m.group(1)] = m.group(2)
    except OSError:
        pass
    return ".".join(v.get(k, "?") for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL"))


def stable(text: str) -> str:
    """Drop what depends on the cache state (cold/warm) from what goes into the reports."""
    return re.sub(r" \(reused\)|, work copy (reused|copied)", "", text)


class Out:
    """One line per stage on stdout; the same lines, without timings, in summary.txt. On a
    terminal the stage under way shows its running time (quiet in CI and pipes)."""

    def __init__(self, quiet: bool = False):
        self.lines: List[str] = []
        self.quiet = quiet
        self._ticker: Optional[threading.Event] = None

    def working(self, name: str) -> None:
        self.stop()
        if self.quiet or not sys.stdout.isatty():
            return
        done = self._ticker = threading.Event()
        t0 = time.monotonic()

        def tick():
            while not done.wait(1.0):
                sys.stdout.write(f"\r[{name:<9}] ...  {time.monotonic() - t0:.0f}s")
                sys.stdout.flush()
        threading.Thread(target=tick, daemon=True).start()

    def stop(self) -> None:
        if self._ticker:
            self._ticker.set()
            self._ticker = None
            sys.stdout.write("\r\033[K")

    def stage(self, name: str, status: str, text: str, secs: Optional[float] = None):
        self.stop()
        line = f"[{name:<9}] {status:<4} {text}"
        self.lines.append(f"[{name:<9}] {status:<4} {stable(text)}")
        if not self.quiet:
            print(line + (f" ({secs:.1f}s)" if secs is not None else ""), flush=True)

    def info(self, text: str):
        self.stop()
        self.lines.append(text)
        if not self.quiet:
            print(text, flush=True)


@dataclasses.dataclass
class RunOptions:
    ksrc: str = DEFAULT_KSRC
    series: Optional[str] = None          # dir, file, or "none"
    jobs: int = default_jobs()
    output: Optional[str] = None          # report dir (default reports/<tree>/verify)
    timeout: float = 300.0
    profile: str = "verify"               # build dir / config profile
    extra_fragments: Sequence[str] = ()
    plan: Optional[initmod.GuestPlan] = None
    compile_test: bool = True
    quiet: bool = False
    label: str = "verify"
    kdir: Optional[str] = None            # out-of-tree module directory: the series applies here
    compile_only: bool = False            # stop after the compile stage (no kernel, no boot)


def _default_series(tree: str) -> str:
    d = os.path.join(REPO, "patches-generated", tree)
    if os.path.isdir(d) and (os.path.isfile(os.path.join(d, "series")) or
                             any(n.endswith(".patch") and not n.startswith("0000") for n in os.listdir(d))):
        return d
    raise VerifyError("series", f"no series in patches-generated/{tree}/",
                      ["run `make patches` first",
                       "or pass SERIES=<dir of git format-patch files> (SERIES=none: no patch)"])


def _setup_default_tree() -> None:
    """The default tree is unpacked once by `make setup` (scripts/atomic_janitor)."""
    import subprocess
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "scripts"))
    p = subprocess.run([sys.executable, "-m", "atomic_janitor", "setup"], cwd=REPO, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0 or not os.path.isdir(DEFAULT_KSRC):
        raise VerifyError("tree", f"the default tree {DEFAULT_KSRC} is not unpacked",
                          ["run `make setup` (installs and unpacks Debian's linux-source-6.1)",
                           "or pass KSRC=<kernel tree>"],
                          (p.stdout.strip().splitlines() or [""])[-1:])


def _lock(root: str):
    os.makedirs(root, exist_ok=True)
    f = open(os.path.join(root, "lock"), "w")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"verify: waiting for another verify using {root}", file=sys.stderr)
        fcntl.flock(f, fcntl.LOCK_EX)
    return f


def run_verify(opt: RunOptions) -> dict:
    """All stages. Returns the result dict (also written to <output>/result.json)."""
    ksrc = os.path.realpath(opt.ksrc or DEFAULT_KSRC)
    if ksrc == os.path.realpath(DEFAULT_KSRC) and not os.path.isdir(ksrc):
        _setup_default_tree()
    applymod.check_ksrc(ksrc)
    tree = tree_name(ksrc)
    if opt.kdir:
        applymod.check_kdir(opt.kdir)
        tree = tree_name(opt.kdir)
    out_dir = os.path.abspath(opt.output or os.path.join(REPO, "reports", tree, "verify"))
    series = opt.series or _default_series(tree)
    if series != "none":
        applymod.list_series(series)          # fail fast, before waiting for the lock
    # A compile-only run (make verify COMPILE_ONLY=1) boots nothing: it keeps a work copy and
    # a compile matrix of its own, so that it never waits for a boot run on the same tree (nor
    # a boot run for it); the price is one more `make prepare` per matrix configuration.
    root = os.path.join(CACHE, "verify", tree_name(ksrc) + ("-compile-only" if opt.compile_only else ""))
    lockf = _lock(root)
    # logs are written outside the repository while verify runs (a concurrent `make clean`
    # cannot pull them away) and replace the previous report only once complete
    staging = os.path.join(root, "staging", re.sub(r"[^A-Za-z0-9_.-]", "_", opt.label))
    if os.path.exists(staging):
        shutil.rmtree(staging)
    os.makedirs(staging)
    log = Log(os.path.join(staging, "verify.log"))
    blog = Log(os.path.join(staging, "build.log"))
    o = Out(opt.quiet)
    res = {"schema": RESULT_SCHEMA, "tree": tree, "kernel_version": kernel_version(ksrc),
           "series": None if series == "none" else os.path.relpath(os.path.realpath(series), REPO)
           if os.path.realpath(series).startswith(REPO + os.sep) else
           (None if series == "none" else os.path.basename(os.path.normpath(series))),
           "label": opt.label, "verdict": "fail", "failed_stage": None, "message": "",
           "stages": [], "kernel": {}, "guest": {}, "patches": [], "summary": {},
           "_out": os.path.relpath(out_dir, REPO) if out_dir.startswith(REPO + os.sep)
           else out_dir}
    timings: Dict[str, float] = {}
    t_all = time.monotonic()
    patches: List[applymod.Patch] = []
    prow: List[dict] = []

    def stage(name, ok, text, t0=None):
        secs = time.monotonic() - t0 if t0 is not None else None
        if secs is not None:
            timings[name] = round(secs, 1)
        res["stages"].append({"name": name, "status": "pass" if ok else "fail",
                              "summary": stable(text)})
        o.stage(name, "ok" if ok else "FAIL", text, secs)

    try:
        # ---------------------------------------------------------------- tree / series
        t0 = time.monotonic()
        o.working("tree")
        wt = applymod.WorkTree(ksrc, root, log)
        how = wt.prepare()
        paths = [] if series == "none" else applymod.list_series(series)
        patches = [applymod.parse_patch(p, i) for i, p in enumerate(paths, 1)]
        for p in patches:
            prow.append({"index": p.index, "file": p.name, "subject": p.subject,
                         "files": p.files, "applied": False, "compiled": "not-reached",
                         "compile": [], "built_in": "no", "functions": [], "executed": None,
                         "verdict": "not-reached"})
        stage("tree", True, f"{tree} ({res['kernel_version']}), work copy {how}, "
                            f"{len(patches)} patch(es) in the series", t0)

        # ---------------------------------------------------------------- config
        t0 = time.monotonic()
        o.working("config")
        touched = sorted({f for p in patches for f in p.files})
        units = {f: compilemod.plan_unit(wt.src, f) for f in touched} \
            if opt.compile_test and not opt.kdir else {}
        required = configmod.read_fragments([configmod.FRAGMENT, *opt.extra_fragments])
        optional: Dict[str, str] = {}
        dmap = devmod.load()
        driven = devmod.touched_devices(dmap, touched)
        for d in driven:
            for sym in d.kconfig:
                if sym not in required:
                    optional.setdefault(sym, "y")
        for u in units.values():
            for s, v in u.symbols.items():
                if s not in required:
                    optional[s] = "m" if v == "m" or optional.get(s) == "m" else v
        build = os.path.join(root, f"build-{opt.profile}")
        want = dict(optional)
        want.update(required)
        changed, dotconfig = _configure(wt.src, build, required, optional, opt.jobs, blog)
        units = {f: compilemod.settle(u, dotconfig) for f, u in units.items()}
        lost = sorted(s for s in optional if dotconfig.get(s, "n") not in ("y", "m"))
        res["kernel"] = {"config": "tinyconfig + " + " + ".join(
            os.path.relpath(f, REPO) for f in [configmod.FRAGMENT, *opt.extra_fragments]),
            "driver_symbols": sorted(s for s in optional if s not in lost),
            "preempt_count": dotconfig.get("PREEMPT_COUNT") == "y"}
        stage("config", True, f"tinyconfig + fragment: {len(required)} required symbols "
                              f"survived, {len(optional) - len(lost)}/{len(optional)} driver "
                              f"symbols{' (reused)' if not changed else ''}", t0)

        if opt.kdir:
            kdir_kos = _kdir_flow(opt, wt, build, root, patches, prow, stage, log, blog, out_dir)
        # ---------------------------------------------------------------- apply + compile
        t0 = time.monotonic()
        o.working("apply")
        objs_all = sorted({o for u in units.values() for o in u.objects})
        baseline = _baseline(wt, build, objs_all, opt.jobs, blog, dotconfig)
        # what the test kernel cannot build goes through the compile matrix (allmodconfig,
        # cross compilers): built unpatched first, for the warning baseline
        mx, mplan, mbase = None, {}, {}
        memo = memomod.CompileMemo(os.path.join(root, f"compile-memo-{opt.profile}.json"))
        cfg_id = configmod.config_key(wt.src, dotconfig)
        series_files = sorted({f for p in patches for f in p.files})

        # keyed by the series' files as they stand in the copy at this point of the series
        def matrix_compile(cfg, objs):
            k = memo.key(f"matrix {cfg!r}", objs, wt.src, series_files)
            hit = memo.get(k)
            if hit is None:
                hit = {o: list(r) for o, r in mx.compile(cfg, objs).items()}
                if all(r[0] for r in hit.values()):
                    memo.put(k, hit)
            return hit

        def kernel_compile(objs):
            k = memo.key(f"kernel {cfg_id}", objs, wt.src, series_files)
            hit = memo.get(k)
            if hit is None:
                hit = buildmod.compile_objects(wt.src, build, objs, opt.jobs, blog)
                if all(r["ok"] for r in hit.values()):
                    memo.put(k, hit)
            return hit

        for f in sorted(u.file for u in units.values() if not u.objects and u.file.endswith(".c")):
            mx = mx or matrixmod.Matrix(wt.src, os.path.join(root, "matrix"), blog, opt.jobs)
            try:
                cfg, objs = mx.where(f)
            except RuntimeError as exc:
                cfg, objs = None, f"the compile matrix could not configure: {exc}"
            if cfg:
                mplan[f] = (cfg, objs)
            else:
                units[f] = dataclasses.replace(units[f], reason=f"{units[f].reason}; {objs}")
        for cfg, objs in _per_config(mplan.values()):
            mbase.update(matrix_compile(cfg, objs))
        n_new_warn = 0
        for p, row in zip(patches, [] if opt.kdir else prow):
            ok, msg = wt.apply(p)
            if not ok:
                row["verdict"] = "not-applied"
                stage("apply", False, f"patch {p.index} ({p.name}) does not apply: {msg}", t0)
                raise VerifyError("apply", f"patch {p.index} {p.name} does not apply",
                                  ["rebase the series on this tree (make patches KSRC=...)",
                                   f"log: {os.path.relpath(out_dir, REPO)}/verify.log"], [msg])
            row["applied"] = True
            funcs = probemod.functions_for_patch(wt.src, p.changed_lines)
            row["functions"] = sorted({f"{fn}" for fs in funcs.values() for fn in fs})
            row["_probe_files"] = funcs
            if not opt.compile_test:
                row["compiled"] = "skipped"
                continue
            states = []
            vias = {}
            for f in p.files:
                u = units.get(f)
                vias[f] = mplan.get(f) or next(
                    (mplan[c] for c in matrixmod.header_builders(wt.src, f, p.files)
                     if c in mplan), None) if u and not u.objects else None
            # the patch's matrix objects, one compile per configuration
            built = {}
            for cfg, objs in _per_config(v for v in vias.values() if v):
                built.update(matrix_compile(cfg, objs))
            mine = sorted({o for f in p.files if not vias[f] and units.get(f)
                           for o in units[f].objects})
            if mine:
                built.update(kernel_compile(mine))
            for f in p.files:
                u = units.get(f)
                ent = {"file": f, "objects": list(u.objects) if u else [],
                       "new_warnings": [], "reason": u.reason if u else "deleted"}
                via = vias[f]
                if via:
                    ent["objects"], ent["config"], ent["reason"] = list(via[1]), via[0][0], None
                    for obj, (good, err, warns) in sorted((o, built[o]) for o in via[1]):
                        if not good:
                            ent["error"] = err
                            states.append("error")
                        nw = compilemod.new_warnings(mbase.get(obj, (0, 0, []))[2], warns)
                        ent["new_warnings"] += [f"{obj}: {w}" for w in nw]
                        n_new_warn += len(nw)
                        if nw:
                            states.append("new-warnings")
                    states.append("ok")
                elif u and u.objects:
                    for obj, rr in ((o, built[o]) for o in u.objects):
                        if not rr["ok"]:
                            ent["error"] = rr["error"]
                            states.append("error")
                        nw = compilemod.new_warnings(baseline.get(obj, []), rr["warnings"])
                        ent["new_warnings"] += [f"{obj}: {w}" for w in nw]
                        n_new_warn += len(nw)
                        if nw:
                            states.append("new-warnings")
                    states.append("ok")
                else:
                    states.append("not-compile-tested" if f.endswith((".c", ".h")) else "n/a")
                row["compile"].append(ent)
            row["compiled"] = next((s for s in ("error", "new-warnings", "ok",
                                                "not-compile-tested", "n/a") if s in states), "n/a")
            if row["compiled"] == "error":
                err = next(e.get("error") for e in row["compile"] if e.get("error"))
                stage("apply", True, f"{p.index}/{len(patches)} applied", t0)
                stage("compile", False, f"patch {p.index} ({p.name}) breaks the build: {err}")
                raise VerifyError("compile", f"patch {p.index} {p.name} does not compile",
                                  [f"build log: {os.path.relpath(out_dir, REPO)}/build.log"],
                                  [err])
        memo.save()
        if not opt.kdir:
            stage("apply", True, f"{len(patches)}/{len(patches)} patches applied in order"
                                 + (f" ({len(memo.hits)} compile result(s) reused: the same "
                                    "files, config and compiler as before)" if memo.hits else ""), t0)
        if opt.compile_test and not opt.kdir:
            nct = sorted({e["file"] + ": " + (e["reason"] or "") for r in prow
                          for e in r["compile"] if not e["objects"]})
            ok = n_new_warn == 0
            via = sorted({e["config"] for r in prow for e in r["compile"] if e.get("config")})
            stage("compile", ok,
                  f"{len(objs_all) + sum(len(v[1]) for v in mplan.values())} object(s) built "
                  f"per patch with W=1"
                  + (f" (compile matrix: {', '.join(via)})" if via else "") + ", "
                  f"{n_new_warn} new warning(s)"
                  + (f"; not compile-tested: {'; '.join(nct)}" if nct else ""))
            if not ok:
                raise VerifyError("compile", f"{n_new_warn} new W=1 warning(s) vs the unpatched "
                                  "files", ["fix the warnings; see result.json patches[].compile"],
                                  [w for r in prow for e in r["compile"]
                                   for w in e["new_warnings"]][:10])

        if opt.compile_only:
            for row in prow:
                row["verdict"] = "compile-tested-only" if row["compiled"] == "ok" else \
                    "untested" if row["compiled"] in ("not-compile-tested", "n/a") else "fail"
            res["verdict"] = "pass"
            _finish(res, prow, o, staging, out_dir, timings, t_all)
            lockf.close()
            return res
        # ---------------------------------------------------------------- build
        t0 = time.monotonic()
        o.working("build")
        # the objects the last run had to keep out of line get the line before the build,
        # so a warm run builds them once
        kept_path = os.path.join(root, f"out-of-line-{opt.profile}.json")
        kept = _read_json_list(kept_path)
        mine = {o for u in units.values() for o in u.objects}
        for obj in kept:
            if obj in mine:
                wt.append_line(buildmod.kbuild_file(wt.src, obj), buildmod.out_of_line_line(obj))
        kept = [obj for obj in kept if obj in mine]
        buildmod.build_kernel(wt.src, build, opt.jobs, blog)
        more = [obj for obj in _keep_out_of_line(wt, build, patches, prow, units) if obj not in kept]
        if more:
            buildmod.build_kernel(wt.src, build, opt.jobs, blog)
        kept = sorted(set(kept) | set(more))
        _write_json_list(kept_path, kept)
        mods = buildmod.build_test_modules(build, os.path.join(root, f"modules-{opt.profile}"),
                                           opt.jobs, blog)
        intree = buildmod.intree_modules(build)
        for p, row in zip(patches, [] if opt.kdir else prow):
            kinds = set()
            for e in row["compile"]:
                u = units.get(e["file"])
                if u and u.objects:
                    kinds.add(f"module:{u.module}" if u.module else "vmlinux")
            row["built_in"] = ",".join(sorted(kinds)) if kinds else "no"
        stage("build", True, f"bzImage + {len(intree)} in-tree module(s) + "
                             f"{len(mods)} test module(s)"
                             + (f"; patched functions kept out of line for the probes in: "
                                f"{', '.join(kept)}" if kept else ""), t0)

        # ---------------------------------------------------------------- initramfs
        t0 = time.monotonic()
        o.working("initramfs")
        plan = dataclasses.replace(opt.plan) if opt.plan else initmod.GuestPlan()
        plan.load_modules = list(plan.load_modules)
        probes = []
        unprobed = []
        targets: Dict[tuple, dict] = {}     # (patch index, function) -> file, events, state

        def add_probes(idx, fn, objects, module, path, built=True, why=None):
            t = targets.setdefault((idx, fn), {"file": path, "events": [], "built": built,
                                               "build_reason": why, "inlined": False})
            syms = probemod.resolve_symbols(objects, fn) if built else []
            if built and not syms:
                unprobed.append(fn)
                t["inlined"] = True
            for k, sym in enumerate(syms):
                ev = probemod.event_name(idx, fn + (f"_{k}" if k else ""))
                probes.append((ev, f"{module.replace('-', '_')}:{sym}" if module else sym))
                t["events"].append(ev)

        if opt.kdir:
            for p, row in zip(patches, prow):
                for f, fns in sorted(row.pop("_probe_files", {}).items()):
                    for fn in fns:
                        for ko in sorted(kdir_kos):
                            add_probes(p.index, fn, [kdir_kos[ko]], ko, f)
        for p, row in zip(patches, prow):
            for f, fns in sorted(row.pop("_probe_files", {}).items()):
                u = units.get(f) or compilemod.settle(compilemod.plan_unit(wt.src, f), dotconfig)
                objs = [os.path.join(build, o) for o in u.objects]
                for fn in fns:
                    add_probes(p.index, fn, objs, u.module, f, bool(u.objects), u.reason)
        plan.probes = sorted(set(probes))
        plan.devices = [(d.name, list(d.guest)) for d in driven if d.guest]
        plan.programs = {prog: preflight.where(prog) for d in driven for prog, _pkg in d.programs}
        qemu_extra = [a for d in driven for a in d.qemu]
        need = {"aj_exit"} | ({"aj_demo"} if plan.demo else set()) | \
               ({"aj_i2c_record"} if plan.record else set()) | \
               ({"aj_ctx"} if plan.probes else set())
        modules = {n: mods[n] for n in need}
        if "i2c-stub" in intree:
            modules["i2c-stub"] = intree["i2c-stub"]
        for name in sorted(intree):
            if name != "i2c-stub" and any(r["built_in"] == f"module:{name}" for r in prow):
                modules[name] = intree[name]
                plan.load_modules.append(name)
        if opt.kdir:
            for name, ko in sorted(kdir_kos.items()):
                modules[name] = ko
                plan.load_modules.append(name)
        progs = initmod.build_userspace(os.path.join(root, "userspace"), log)
        initrd = initmod.build_initramfs(os.path.join(root, f"initramfs-{opt.profile}.cpio"),
                                         plan, modules, progs)
        with open(os.path.join(staging, "init.sh"), "w") as f:
            f.write(initmod.guest_script(plan))
        res["guest"]["unprobed_functions"] = sorted(set(unprobed))
        stage("initramfs", True, f"{os.path.getsize(initrd) // 1024} KiB, suites: "
                                 f"{', '.join(plan.suites())}; {len(plan.probes)} kprobe(s)"
                                 + (f", not probeable (inlined): {', '.join(sorted(set(unprobed)))}"
                                    if unprobed else ""), t0)

        # ---------------------------------------------------------------- boot
        t0 = time.monotonic()
        o.working("boot")
        accel = bootmod.pick_accel(log, buildmod.bzimage(build), initrd)
        br = bootmod.boot(buildmod.bzimage(build), initrd, os.path.join(staging, "console.log"),
                          opt.timeout, log, accel, extra_args=qemu_extra)
        timings["boot_to_verdict"] = round(br.seconds, 1)
        res["guest"]["accel"] = accel
        res["guest"]["exit"] = br.describe()
        boot_ok = br.verdict_code is not None
        stage("boot", boot_ok, f"{accel}, {br.describe()}", t0)
        # ---------------------------------------------------------------- parse
        claims = claimsmod.load(series) if series != "none" else {}
        _parse_into(res, br.console, prow, plan, o, stage, br,
                    _context_rows(patches, prow, targets, claims, series, dmap))
        # ---------------------------------------------------------------- live-bug
        live = [(p, c) for p in patches for c in claims.get(
            os.path.relpath(p.path, series) if os.path.isdir(series) else p.name, [])
            if c.get("live_bug")]
        if live and not opt.kdir:
            _reproduce_live_bugs(live, patches, res, wt, build, root, plan, modules, progs,
                                 accel, staging, opt, log, blog, o, stage)
    except VerifyError as e:
        o.stop()
        res["failed_stage"] = res["failed_stage"] or e.stage
        res["message"] = e.message
        res["error"] = e.render()
        for row in prow:
            if row["verdict"] == "not-reached" and row["applied"] and e.stage not in ("apply",):
                row["verdict"] = "fail"
        _finish(res, prow, o, staging, out_dir, timings, t_all)
        lockf.close()
        raise
    _finish(res, prow, o, staging, out_dir, timings, t_all)
    lockf.close()
    return res


LIVE_BUG_SPLATS = ("sleeping-in-atomic", "scheduling-while-atomic")


def live_bug_shown(when: str, function: str, console: str, ctx: Dict[str, dict],
                   events: Sequence[str]) -> (bool, str):
    """Whether a boot of the series without the fix shows the live bug. 'always': a
    sleeping-in-atomic splat outside every declared region, with the function in its call
    trace. '!PREEMPT_COUNT': the test kernel has a preempt count, so the guess is right
    there; what the bug rests on is that the function runs with the preempt count raised (a
    held lock), which in_atomic() cannot see on a kernel without PREEMPT_COUNT."""
    if when == "always":
        lines = console.splitlines()
        for sp in parsemod.scan_splats(console).unexpected:
            if sp.kind in LIVE_BUG_SPLATS:
                trace = "\n".join(lines[sp.line_no - 1:sp.line_no + 40])
                if re.search(r"\b%s\b" % re.escape(function), trace):
                    return True, f"{sp.kind}: {sp.text} (console line {sp.line_no}, " \
                                 f"{function}() in its trace)"
        return False, f"no sleeping-in-atomic splat with {function}() in its trace"
    recs = [ctx[e] for e in events if e in ctx]
    held = sum(r.get("preempt_off", 0) for r in recs)
    if held:
        return True, (f"{function}() ran {held} time(s) with the preempt count raised (a held "
                      "lock): in_atomic() sees it only with PREEMPT_COUNT")
    return False, f"{function}() never ran with the preempt count raised"


def _reproduce_live_bugs(live, patches, res, wt, build, root, plan, modules, progs, accel,
                         staging, opt, log, blog, o, stage):
    """Stage live-bug: for each live-bug fix whose function the guest reaches, boot the
    series up to the patch before the fix and see the bug there; the patched run has
    already shown that it is gone (no splat)."""
    t0 = time.monotonic()
    rows = {(r["patch"], r["function"]): r for r in res["guest"].get("functions", [])}
    out, failed = [], []
    for p, c in live:
        r = rows.get((p.index, c["function"]))
        ent = {"patch": p.index, "function": c["function"], "when": c["live_bug"]}
        if r is None or r["status"] in ("not-reachable", "not-probeable"):
            ent.update(status="not-reachable", why=(r or {}).get("why") or "not probed")
            out.append(ent)
            o.info(f"            live bug in {c['function']}(): not reachable in QEMU; {ent['why']}")
            continue
        wt.prepare()
        for q in patches[:p.index - 1]:
            ok, msg = wt.apply(q)
            if not ok:
                raise VerifyError("live-bug", f"patch {q.index} does not apply on its own", [msg])
        buildmod.build_kernel(wt.src, build, opt.jobs, blog)
        initrd = initmod.build_initramfs(os.path.join(root, f"initramfs-{opt.profile}-livebug.cpio"),
                                         plan, modules, progs)
        console_path = os.path.join(staging, f"console-without-{p.index}.log")
        br = bootmod.boot(buildmod.bzimage(build), initrd, console_path, opt.timeout, log, accel)
        shown, why = live_bug_shown(c["live_bug"], c["function"], br.console,
                                    parsemod.contexts(br.console), r["events"])
        ent.update(status="reproduced" if shown else "not-reproduced", why=why,
                   console=os.path.basename(console_path))
        out.append(ent)
        o.info(f"            live bug in {c['function']}() ({c['live_bug']}): "
               f"{'reproduced without patch ' + str(p.index) if shown else 'NOT reproduced'}: {why}")
        if not shown:
            failed.append(f"{c['function']}(): {why}")
    res["guest"]["live_bugs"] = out
    n_rep = sum(1 for e in out if e["status"] == "reproduced")
    stage("live-bug", not failed, f"{len(out)} live-bug fix(es): {n_rep} reproduced without the "
                                  f"fix and gone with it, "
                                  f"{sum(1 for e in out if e['status'] == 'not-reachable')} not "
                                  f"reachable in QEMU, {len(failed)} not reproduced", t0)
    if failed:
        res["verdict"] = "fail"
        raise VerifyError("live-bug", "a live bug that the series claims to fix does not show "
                          "without the fix", ["the proof's path may be wrong: read the "
                                              "console-without-N.log beside the report"], failed)


def _kdir_flow(opt, wt, build, root, patches, prow, stage, log, blog, out_dir):
    """KDIR=: build the test kernel first, then the module dir pristine (baseline W=1
    warnings), then after each patch. Returns the patched modules {name: .ko}."""
    t0 = time.monotonic()
    buildmod.build_kernel(wt.src, build, opt.jobs, blog)
    name = tree_name(opt.kdir)
    base = applymod.ModuleDir(opt.kdir, os.path.join(root, f"kdir-{name}-base"), log)
    base.prepare()
    b0 = buildmod.build_module_dir(build, base.src, opt.jobs, blog)
    if not b0["ok"]:
        raise VerifyError("compile", f"KDIR does not build unpatched against {opt.ksrc or 'the default tree'}: "
                          + b0["error"], [f"build log: {os.path.relpath(out_dir, REPO)}/build.log"])
    mwt = applymod.ModuleDir(opt.kdir, os.path.join(root, f"kdir-{name}"), log)
    mwt.prepare()
    kos = {}
    n_new = 0
    for p, row in zip(patches, prow):
        ok, msg = mwt.apply(p)
        if not ok:
            row["verdict"] = "not-applied"
            raise VerifyError("apply", f"patch {p.index} {p.name} does not apply to KDIR",
                              ["rebase the series on the module directory"], [msg])
        row["applied"] = True
        funcs = probemod.functions_for_patch(mwt.src, p.changed_lines)
        row["functions"] = sorted({fn for fs in funcs.values() for fn in fs})
        row["_probe_files"] = funcs
        buildmod.touch_sources(mwt.src)
        b = buildmod.build_module_dir(build, mwt.src, opt.jobs, blog)
        ent = {"file": ", ".join(p.files), "objects": ["M=" + name], "new_warnings": [],
               "reason": None}
        if not b["ok"]:
            ent["error"] = b["error"]
            row["compile"].append(ent)
            row["compiled"] = "error"
            raise VerifyError("compile", f"patch {p.index} {p.name} does not compile", [],
                              [b["error"]])
        for f in p.files:
            if f.endswith(".c"):
                nw = compilemod.new_warnings(buildmod.warnings_of(b0["output"], f),
                                             buildmod.warnings_of(b["output"], f))
                ent["new_warnings"] += [f"{f}: {w}" for w in nw]
                n_new += len(nw)
        row["compile"].append(ent)
        row["compiled"] = "new-warnings" if ent["new_warnings"] else "ok"
        kos = b["kos"]
    if not patches:
        kos = b0["kos"]
    for row in prow:
        row["built_in"] = ",".join(f"module:{k}" for k in sorted(kos)) or "no"
    stage("apply", True, f"{len(patches)}/{len(patches)} patches applied to KDIR={name}", t0)
    stage("compile", n_new == 0, f"M={name} built with W=1 after each patch, {n_new} new "
                                 f"warning(s), modules: {', '.join(sorted(kos)) or 'none'}")
    if n_new:
        raise VerifyError("compile", f"{n_new} new W=1 warning(s) vs the unpatched module dir",
                          [], [w for r in prow for e in r["compile"] for w in e["new_warnings"]][:10])
    return kos


def _per_config(vias):
    """(config, objects) pairs -> one (config, sorted objects) per configuration, in the
    matrix's order."""
    objs: Dict[str, set] = {}
    cfgs = {}
    for cfg, o in vias:
        cfgs[cfg[0]] = cfg
        objs.setdefault(cfg[0], set()).update(o)
    order = [c[0] for c in matrixmod.CONFIGS]
    return [(cfgs[n], sorted(objs[n])) for n in sorted(cfgs, key=order.index)]


def _configure(work, build, required, optional, jobs, blog):
    """Required symbols must survive; optional (touched drivers) are best effort: if asking
    for them breaks a required one, retry without them."""
    want = dict(optional)
    want.update(required)
    try:
        return configmod.configure(work, build, want, jobs, blog)
    except VerifyError as e:
        if not optional:
            raise
        bad = {l.split(":")[0][7:] for l in e.details}
        if bad & set(required):
            return configmod.configure(work, build, required, jobs, blog)
        # only optional ones were lost: accept the config as it is, record them
        return True, configmod.read_dotconfig(os.path.join(build, ".config"))


def _baseline(wt, build, objs, jobs, blog, dotconfig) -> Dict[str, List[str]]:
    """W=1 warnings of each object, unpatched. Cached per (object, config, source size/mtime)."""
    cache_path = os.path.join(build, ".aj-baseline.json")
    try:
        with open(cache_path) as f:
            cache = json.load(f)
    except (OSError, ValueError):
        cache = {}
    key_cfg = configmod.config_key(wt.src, dotconfig)
    out, todo = {}, []
    for obj in objs:
        src = os.path.join(wt.ksrc, obj[:-2] + ".c")
        try:
            st = os.stat(src)
            k = f"{key_cfg}:{st.st_size}:{int(st.st_mtime)}"
        except OSError:
            k = None
        if k and cache.get(obj, {}).get("key") == k:
            out[obj] = cache[obj]["warnings"]
        else:
            todo.append((obj, k))
    if todo:
        r = buildmod.compile_objects(wt.src, build, [o for o, _ in todo], jobs, blog)
        for obj, k in todo:
            out[obj] = r[obj]["warnings"]
            if r[obj]["ok"] and k:
                cache[obj] = {"key": k, "warnings": r[obj]["warnings"]}
        with open(cache_path, "w") as f:
            json.dump(cache, f, indent=1, sort_keys=True)
    return out


def _context_rows(patches, prow, targets, claims, series, dmap):
    """One row per patched function: where it is, its probe events, the claim of the series
    (index.json) on it, and why it cannot run when nothing in the guest can drive it."""
    rows = []
    for p, row in zip(patches, prow):
        rel = os.path.relpath(p.path, series) if os.path.isdir(series) else p.name
        by_fn = {c["function"]: c for c in claims.get(rel, [])}
        for (idx, fn), t in sorted(targets.items()):
            if idx != p.index:
                continue
            c = by_fn.get(fn)
            rows.append({"patch": idx, "function": fn, "file": t["file"], "events": t["events"],
                         "claim": c["class"] if c else None, "site": c["site"] if c else None,
                         "region": bool(c and c.get("region")),
                         "inlined": t["inlined"],
                         "unreachable": devmod.unreachable_reason(dmap, t["file"], t["built"],
                                                                  t["build_reason"], fn),
                         "driven_by": (devmod.driver_of(dmap, t["file"]).name
                                       if devmod.driver_of(dmap, t["file"]) else None)})
    return rows


def _check_contexts(rows, ctx, o, stage):
    """Stage context: each patched function executed N times, with its contexts held against
    the claim, or the reason it cannot run. Returns whether it passed."""
    t0 = time.monotonic()
    bad, n_exec, n_unreach = [], 0, 0
    for r in rows:
        recs = [ctx[e] for e in r["events"] if e in ctx]
        rec = None
        if recs:
            rec = {k: sum(x.get(k, 0) for x in recs) for k in recs[0] if k != "callers"}
            rec["callers"] = {}
            for x in recs:
                for k, v in x.get("callers", {}).items():
                    rec["callers"].setdefault(k, v)
        r["contexts"] = rec
        status, why = claimsmod.check(r["claim"], rec, r["region"])
        if status == "not-executed":
            if r["inlined"]:
                status, why = "not-probeable", "inlined into its callers: no symbol to probe"
            elif r["unreachable"]:
                status, why = "not-reachable", r["unreachable"]
                n_unreach += 1
            elif r["events"]:
                status, why = "missed", (f"{r['driven_by']} drives {r['file']}, but the "
                                         "function ran 0 times")
            else:
                status, why = "missed", "the recorder did not arm a probe on it"
        else:
            n_exec += 1
        r["status"], r["why"] = status, why
        what = (f"executed {claimsmod.describe(rec)}" if rec and rec.get("hits") else
                "not reachable in QEMU" if status == "not-reachable" else status)
        o.info(f"            {r['function']}() [{r['claim'] or 'no claim'}]: {what}"
               + (f"; {why}" if why else ""))
        if status in ("violated", "proof-error", "missed"):
            bad.append(f"{r['function']}(): {status}: {why}")
    ok = not bad
    stage("context", ok, f"{len(rows)} patched function(s): {n_exec} executed, "
                         f"{n_unreach} not reachable in QEMU, {len(bad)} failed", t0)
    return ok, bad


def _parse_into(res, console, prow, plan, o, stage, br, ctx_rows=()):
    t0 = time.monotonic()
    test = parsemod.parse_ktap(console)
    splats = parsemod.scan_splats(console)
    hit = parsemod.hits(console)
    failed_probes = parsemod.failed_probes(console)
    suites = [{"name": s.name, "status": s.status.value,
               "cases": [{"name": c.name, "status": c.status.value} for c in s.subtests]}
              for s in test.subtests]
    res["guest"]["ktap"] = {"status": test.status.value, "counts": test.counts(),
                            "errors": test.errors}
    res["guest"]["suites"] = suites
    res["guest"]["paths"] = {k: {"taken": v[0], "expected": v[1]}
                             for k, v in sorted(parsemod.paths(console).items())}
    d = parsemod.demo_value(console)
    if d:
        res["guest"]["demo"] = {"in_atomic_under_spinlock": d[0], "preempt_count": d[1] == "y"}
    res["guest"]["splats"] = {
        "expected": [f"{s.kind}: {s.text}" for s in splats.splats if s.expected],
        "unexpected": [f"{s.kind}: {s.text}" for s in splats.unexpected],
        "missing": splats.missing}
    res["guest"]["hits"] = dict(sorted(hit.items()))
    res["guest"]["failed_probes"] = failed_probes
    c = test.counts()
    ktap_ok = test.status == parsemod.Status.SUCCESS
    stage("ktap", ktap_ok, f"{len(test.subtests)} suite(s), "
                           f"{c['success']} passed, {c['failure']} failed, "
                           f"{c['crashed']} crashed, {c['skipped']} skipped", t0)
    for line in parsemod.failures(test)[:12]:
        o.info(f"            {line}")
    stage("splats", splats.ok, f"{len(splats.splats) - len(splats.unexpected)} expected, "
                               f"{len(splats.unexpected)} unexpected, "
                               f"{len(splats.missing)} declared but missing")
    for s in splats.unexpected[:8]:
        o.info(f"            unexpected {s.kind} (console line {s.line_no}): {s.text}")
    for m in splats.missing:
        o.info(f"            expected splat not seen: {m}")
    guest_ok = br.verdict_code == 0
    ctx = parsemod.contexts(console)
    res["guest"]["contexts"] = ctx
    ctx_rows = [dict(r) for r in ctx_rows]
    ctx_ok, ctx_bad = _check_contexts(ctx_rows, ctx, o, stage)
    res["guest"]["functions"] = ctx_rows
    for row in prow:
        row["contexts"] = [{k: r[k] for k in ("function", "claim", "status", "why", "contexts")}
                           for r in ctx_rows if r["patch"] == row["index"]]
    all_ok = ktap_ok and splats.ok and guest_ok and ctx_ok
    if not br.verdict_code == 0 and br.verdict_code is None:
        for l in parsemod.last_lines(console):
            o.info(f"            | {l}")
    for row in prow:
        evs = [e for e in hit if e.startswith(f"p{row['index']}_")]
        row["executed"] = sum(hit[e] for e in evs) if evs else None
        if row["compiled"] in ("error", "new-warnings"):
            row["verdict"] = "fail"
        elif not all_ok and row["built_in"] != "no":
            row["verdict"] = "fail"
        elif row["executed"]:
            row["verdict"] = "tested"
        else:
            row["verdict"] = "compile-tested-only" if row["compiled"] == "ok" else \
                ("fail" if not all_ok else "untested")
    if not all_ok:
        why = []
        if not ktap_ok:
            why.append(f"KTAP {test.status.value}")
        if splats.unexpected:
            why.append("unexpected " + ", ".join(sorted({s.kind for s in splats.unexpected})))
        if splats.missing:
            why.append("expected splat missing")
        if not guest_ok:
            why.append(br.describe())
        if not ctx_ok:
            why.append(("context: " if why else "") + "; ".join(ctx_bad[:3]))
        wrong = [f"{k}: path={v['taken']} expected={v['expected']}"
                 for k, v in res["guest"]["paths"].items() if v["taken"] != v["expected"]]
        if wrong:
            why.append("wrong path (" + "; ".join(wrong) + ")")
        res["failed_stage"] = "boot" if br.verdict_code is None else \
            "parse" if not (ktap_ok and splats.ok and guest_ok) else "context"
        raise VerifyError(res["failed_stage"], "; ".join(why),
                          [f"raw console: {res['_out']}/console.log",
                           f"rerun the parse offline: /usr/bin/python3 qemu-verify parse "
                           f"{res['_out']}/console.log"],
                          (ctx_bad[:4] +
                           [f"unexpected {s.kind}: {s.text}" for s in splats.unexpected[:4]] +
                           [f"expected splat not seen: {m}" for m in splats.missing[:2]] +
                           ([f"last console lines: {' / '.join(parsemod.last_lines(console, 4))}"]
                            if br.verdict_code is None else [])))
    res["verdict"] = "pass"


def _read_json_list(path: str) -> List[str]:
    try:
        with open(path) as f:
            v = json.load(f)
        return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []
    except (OSError, ValueError):
        return []


def _write_json_list(path: str, items: List[str]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(items, f)
    os.replace(tmp, path)


def _keep_out_of_line(wt, build, patches, prow, units) -> List[str]:
    """Patched functions of a .c file that GCC inlined away: their objects get the kbuild
    line that keeps them out of line, so the context recorder can probe them. A function
    the source declares inline stays inline (probes.py probes its callers). Returns the
    objects rebuilt."""
    objs = set()
    for p, row in zip(patches, prow):
        for f, fns in sorted(row.get("_probe_files", {}).items()):
            u = units.get(f)
            if not (u and u.objects and f.endswith(".c")):
                continue
            built = [os.path.join(build, o) for o in u.objects]
            with open(os.path.join(wt.src, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for fn in fns:
                if not probemod.is_inline_in(text, fn) and not probemod.resolve_symbols(built, fn):
                    objs.update(o for o in u.objects if os.path.exists(os.path.join(build, o)))
    for o in sorted(objs):
        wt.append_line(buildmod.kbuild_file(wt.src, o), buildmod.out_of_line_line(o))
    return sorted(objs)


def _finish(res, prow, o, staging, out_dir, timings, t_all):
    for row in prow:
        row.pop("_probe_files", None)
    res["patches"] = prow
    n = len(prow)
    summ = {"patches": n,
            "applied": sum(1 for r in prow if r["applied"]),
            "compiled": sum(1 for r in prow if r["compiled"] == "ok"),
            "built_in": sum(1 for r in prow if r["built_in"] != "no"),
            "executed": sum(1 for r in prow if r["executed"]),
            "compile_tested_only": sum(1 for r in prow if r["verdict"] == "compile-tested-only")}
    res["summary"] = summ
    if res["verdict"] == "pass":
        line = (f"VERDICT: PASS: {summ['patches']} patch(es): {summ['applied']} applied, "
                f"{summ['compiled']} compiled, {summ['built_in']} built into the test kernel, "
                f"{summ['executed']} executed in the guest, "
                f"{summ['compile_tested_only']} compile-tested only")
    else:
        line = (f"VERDICT: FAIL at {res['failed_stage']}: {res['message']} "
                f"({summ['applied']}/{summ['patches']} applied, {summ['executed']} executed "
                f"in the guest)")
    o.info(line)
    for r in prow:
        o.info(f"  {r['index']:>3} {r['verdict']:<20} applied={'yes' if r['applied'] else 'no'} "
               f"compiled={r['compiled']} built-in={r['built_in']} "
               f"executed={r['executed'] if r['executed'] is not None else '-'}  {r['subject']}")
    res["final"] = line
    timings["total"] = round(time.monotonic() - t_all, 1)
    with open(os.path.join(staging, "result.json"), "w") as f:
        json.dump({k: v for k, v in res.items() if not k.startswith("_")}, f, indent=2,
                  sort_keys=True)
        f.write("\n")
    with open(os.path.join(staging, "summary.txt"), "w") as f:
        f.write("\n".join(o.lines) + "\n")
    with open(os.path.join(staging, "timings.json"), "w") as f:
        json.dump(timings, f, indent=1, sort_keys=True)
    res["_timings"] = timings
    # the previous report is replaced only now that the new one is complete
    new, old = out_dir + ".new", out_dir + ".old"
    for d in (new, old):
        if os.path.exists(d):
            shutil.rmtree(d)
    os.makedirs(os.path.dirname(out_dir), exist_ok=True)
    shutil.copytree(staging, new)
    if os.path.exists(out_dir):
        os.rename(out_dir, old)
    os.rename(new, out_dir)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(staging, ignore_errors=True)
