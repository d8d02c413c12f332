"""Command line: the Makefile's targets call `python3 -m atomic_janitor <stage>`."""

import argparse
import os
import sys

from .errors import JanitorError, report

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, like every other error here
        print(f"CRITICAL: {message}", file=sys.stderr)
        print(f"    see: {self.prog} --help", file=sys.stderr)
        sys.exit(2)


def _common(p):
    p.add_argument("--ksrc", help="kernel tree or out-of-tree module directory (default: Debian's 6.1)")
    p.add_argument("--scope", help="paths findings are reported for (default: drivers/ sound/ include/drm/)")
    p.add_argument("--predicates", help="in_atomic (default), a list, or 'all'")
    p.add_argument("--jobs", type=int, help="parallel spatch jobs (default: all cores)")
    p.add_argument("--format", help="summary,json,sarif,html (default: all)")
    p.add_argument("--output", help="output root (default: <repo>/reports)")
    p.add_argument("--keep-going", action="store_true", help="exit 0 even if some files were not analysed")
    p.add_argument("--no-cache", action="store_true", help="ignore and do not write the per-file cache")
    p.add_argument("--baseline", help="findings.json to compare with (default: the previous scan "
                   "in the output directory): each finding is marked new or unchanged, gone ones listed")
    p.add_argument("--live-bugs", choices=["only"], help="print only the live bugs (sleeping branch on an "
                   "atomic path), each with its path; the reports are written as always")


def build_parser():
    parser = _Parser(prog="atomic-janitor")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    _common(sub.add_parser("scan", help="find every use and write reports/<tree>/"))
    p = sub.add_parser("setup", help="install Coccinelle and unpack the default tree")
    p.add_argument("--ksrc")
    _common(sub.add_parser("bench", help="time the scan against the kernel's coccicheck"))
    sub.add_parser("patches", help="write the series for the proven sites (options: patches --help)")
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["patches"]:
        # The patches stage has its own options (python3 -m atomic_janitor patches --help).
        from .pipeline import patches
        return patches(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        if args.cmd == "scan":
            from .pipeline import scan
            only = getattr(args, "live_bugs", None) == "only"
            doc = scan(args.ksrc, args.scope, args.predicates, args.jobs, args.format,
                       args.output or os.path.join(REPO, "reports"), keep_going=args.keep_going,
                       use_cache=not args.no_cache, log=(lambda *a, **k: None) if only else print,
                       baseline_path=args.baseline, series_root=os.path.join(REPO, "patches-generated"))
            if only:
                from .report.summary import live_bug_lines
                lines = live_bug_lines(doc["findings"])
                print("\n".join(lines) if lines else
                      f"no live bug among {len(doc['findings'])} sites")
        elif args.cmd == "setup":
            from . import deps, tree
            deps.ensure_spatch()
            print(tree.resolve(args.ksrc).root)
        elif args.cmd == "bench":
            from .bench import bench
            bench(args)
        return 0
    except JanitorError as err:
        return report(err)
    except KeyboardInterrupt:
        print("CRITICAL: interrupted; previous reports left as they were", file=sys.stderr)
        return 130
