"""CLI: ``/usr/bin/python3 qemu-verify <command>`` (make verify / verify-all / demo / bench-verify).

Commands (kunit.py style): ``config``, ``parse FILE|-``, ``run`` (= all stages, one line per
stage, final verdict), ``demo``, ``seed``, ``mutants``, ``all``, ``bench``.
Exit 0 only when every stage passed; 1 otherwise; 130 on Ctrl-C; no tracebacks.
"""
import argparse
import os
import sys
from typing import Optional, Sequence

from . import apply as applymod
from . import config as configmod
from . import parse as parsemod
from . import preflight
from .common import CACHE, DEFAULT_KSRC, Log, VerifyError, default_jobs
from .extras import cmd_all, cmd_bench, cmd_demo, cmd_mutants, cmd_seed
from .verify import RunOptions, run_verify, tree_name


def cmd_run(a) -> int:
    opt = RunOptions(ksrc=a.ksrc or DEFAULT_KSRC, series=a.series, jobs=a.jobs or default_jobs(),
                     output=a.output, timeout=a.timeout,
                     kdir=os.path.abspath(a.kdir) if a.kdir else None,
                     compile_only=getattr(a, "compile_only", False),
                     compile_test=not getattr(a, "no_compile_test", False),
                     profile="compile" if getattr(a, "compile_only", False) else "verify")
    if opt.compile_only and not opt.compile_test:
        raise VerifyError("options", "--compile-only and --no-compile-test leave nothing to do",
                          ["drop one of them"])
    run_verify(opt)
    return 0


def cmd_parse(a) -> int:
    text = sys.stdin.read() if a.file == "-" else open(a.file, errors="replace").read()
    t = parsemod.parse_ktap(text)
    s = parsemod.scan_splats(text)
    c = t.counts()
    print(f"KTAP: {t.status.value}: {c['success']} passed, {c['failure']} failed, "
          f"{c['crashed']} crashed, {c['skipped']} skipped")
    for l in parsemod.failures(t):
        print(f"  {l}")
    print(f"splats: {len(s.splats) - len(s.unexpected)} expected, {len(s.unexpected)} "
          f"unexpected, {len(s.missing)} missing")
    for sp in s.unexpected:
        print(f"  unexpected {sp.kind} (line {sp.line_no}): {sp.text}")
    for m in s.missing:
        print(f"  expected splat not seen: {m}")
    ok = t.status == parsemod.Status.SUCCESS and s.ok
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def cmd_config(a) -> int:
    ksrc = os.path.realpath(a.ksrc or DEFAULT_KSRC)
    tree = tree_name(ksrc)
    root = os.path.join(CACHE, "verify", tree)
    log = Log(os.path.join(root, "config.log"))
    wt = applymod.WorkTree(ksrc, root, log)
    wt.prepare()
    syms = configmod.read_fragments([configmod.FRAGMENT])
    configmod.configure(wt.src, os.path.join(root, "build-verify"), syms,
                        a.jobs or default_jobs(), log, force=True)
    print(f"config: {len(syms)} symbols survived: {os.path.join(root, 'build-verify', '.config')}")
    return 0




def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="qemu-verify", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")

    def common(p):
        p.add_argument("--ksrc", default=os.environ.get("KSRC") or None)
        p.add_argument("--kdir", default=None, help="out-of-tree module directory")
        p.add_argument("--jobs", type=int, default=None)
        p.add_argument("--timeout", type=float, default=300.0, help="QEMU hard timeout (s)")
        p.add_argument("--output", default=None)
        p.add_argument("--series", default=None)

    for name in ("run", "config", "demo", "seed", "mutants", "all", "bench"):
        sp = sub.add_parser(name)
        common(sp)
        if name == "run":
            sp.add_argument("--compile-only", action="store_true",
                            help="stop after the compile stage (no test kernel, no boot)")
            sp.add_argument("--no-compile-test", action="store_true",
                            help="skip the per-patch W=1 compile test and the compile matrix: "
                                 "the boot-time checks only (the series' patches show "
                                 "compiled=skipped)")
    pp = sub.add_parser("parse")
    pp.add_argument("file")
    a = ap.parse_args(argv)
    if not a.cmd:
        ap.print_help()
        return 2
    if getattr(a, "jobs", None) is not None and a.jobs < 1:
        a.jobs = None
    fn = {"run": cmd_run, "parse": cmd_parse, "config": cmd_config, "demo": cmd_demo,
          "seed": cmd_seed, "mutants": cmd_mutants, "all": cmd_all, "bench": cmd_bench}[a.cmd]
    try:
        if a.cmd not in ("parse", "config"):
            preflight.check()
        return fn(a)
    except VerifyError as e:
        print(e.render(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("CRITICAL: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # an internal error: still one line, never a traceback
        print(f"CRITICAL: internal error: {type(e).__name__}: {e}\n"
              f"  -> rerun with AJ_DEBUG=1 for the traceback and report it", file=sys.stderr)
        if os.environ.get("AJ_DEBUG"):
            raise
        return 1
