"""The patches stage: findings.json -> patches-generated/<tree>/. `make patches` runs it
through the driver (python3 -m atomic_janitor patches), which then links the HTML report to
the patches; python3 -m atomic_janitor.patches runs the stage alone."""

import argparse
import os
import subprocess
import sys
import time

from .. import cache, findings, lastscan, tree as treemod
from ..errors import JanitorError, report
from . import series

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"CRITICAL: {message}", file=sys.stderr)
        print(f"    see: {self.prog} --help", file=sys.stderr)
        sys.exit(2)


def build_parser():
    p = _Parser(prog="atomic-janitor patches")
    p.add_argument("--ksrc", help="kernel tree the findings are for (default: Debian's 6.1)")
    p.add_argument("--predicates", help="must match the scan's PREDICATES (checked)")
    p.add_argument("--scope", help="must match the scan's SCOPE (checked)")
    p.add_argument("--reports", help="reports root holding <tree>/findings.json (default: <repo>/reports)")
    p.add_argument("--findings", help="findings.json to use (default: <reports>/<tree>/findings.json)")
    p.add_argument("--output", help="patches root (default: <repo>/patches-generated)")
    p.add_argument("--from", dest="from_", help="From: identity 'Name <mail>' (default: git config)")
    p.add_argument("--signoff", help="Signed-off-by identity (default: git config; never invented)")
    p.add_argument("--upstream", help="newer tree (a path or a version such as 6.12): the series rebased "
                   "there in upstream/<tree>/, and summary.txt names what does not apply and why")
    p.add_argument("--bench", action="store_true", help="print time and size of the series")
    return p


def _check_args(doc, args, path):
    if args.predicates:
        from .. import family
        want = sorted(set(family.expand(args.predicates)))
        have = sorted(doc.get("predicates") or [])
        if set(want) != set(have):
            raise JanitorError(f"{path} was scanned with PREDICATES={','.join(have)}, not {args.predicates}",
                               f"run `make scan PREDICATES={args.predicates}` first, or give the scan's PREDICATES")
    if args.scope:
        want = sorted(s.rstrip("/") for s in args.scope.replace(",", " ").split())
        have = sorted(s.rstrip("/") for s in doc.get("scope") or [])
        if want != have:
            raise JanitorError(f"{path} was scanned with SCOPE={' '.join(have)}, not {args.scope}",
                               "run `make scan` with this SCOPE first")


def _changed_files(tree, doc):
    """Files the scan fingerprinted that differ now (or are gone)."""
    out = []
    for rel, sha in sorted((doc.get("files") or {}).items()):
        try:
            now = cache.file_sha(os.path.join(tree.root, rel))
        except OSError:
            now = None
        if now != sha:
            out.append(rel)
    return out


def _rescan(tree, doc, reports, changed):
    """The tree changed since the scan: scan it again, with the scan's own predicates and
    scope (through the scan's command line: patches never imports the scan stage)."""
    print(f"atomic-janitor: {len(changed)} file(s) changed since the scan ({changed[0]}"
          f"{', ...' if len(changed) > 1 else ''}): scanning {tree.name} again", file=sys.stderr)
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "scripts"))
    # the default scope names directories a tree may lack; they held nothing then either
    scope = [d for d in doc["scope"] if os.path.exists(os.path.join(tree.root, d))] or doc["scope"]
    argv = [sys.executable, "-m", "atomic_janitor", "scan", "--ksrc", tree.root,
            "--scope", " ".join(scope), "--predicates", ",".join(doc["predicates"]),
            "--output", reports, "--keep-going"]
    res = subprocess.run(argv, env=env, check=False)
    if res.returncode != 0:
        raise JanitorError(f"the new scan of {tree.name} failed (exit {res.returncode})",
                           "run `make scan` with the same variables and read its message")


def run(args):
    t0 = time.monotonic()
    reports = os.path.abspath(args.reports or os.path.join(REPO, "reports"))
    ksrc = args.ksrc
    if ksrc is None and args.findings is None:
        last = lastscan.read(reports)
        ksrc = last["ksrc"] if last else None      # the tree `make scan` just read
    tree = treemod.resolve(ksrc)
    path = os.path.abspath(args.findings or os.path.join(reports, tree.name, "findings.json"))
    doc = series.load_findings(path)
    _check_args(doc, args, path)
    if doc["tree"].get("name") != tree.name:
        raise JanitorError(f"{path} is for tree {doc['tree'].get('name')}, not {tree.name}")
    changed = _changed_files(tree, doc) if args.findings is None else []
    if changed:
        _rescan(tree, doc, reports, changed)
        doc = series.load_findings(path)
    if not findings.patchable(doc):
        # No empty "[PATCH 0/0]": say why, and leave any earlier series as it was.
        print(f"atomic-janitor: {tree.name}: no series written: "
              f"{lastscan.class_line(doc, os.path.dirname(path))}")
        return None
    upstream = treemod.resolve(args.upstream) if args.upstream else None
    out = os.path.abspath(args.output or os.path.join(REPO, "patches-generated"))
    res = series.build(tree, doc, path, out, os.path.join(reports, tree.name), from_=args.from_,
                       signoff=args.signoff, upstream=upstream)
    rel = os.path.relpath(res["dir"], os.getcwd())
    tl = ", ".join(f"{res['tally'].get(k, 0)} {k}" for k in ("Success", "Warning", "Error"))
    print(f"atomic-janitor: {tree.name}: {res['patches']} patch(es), {len(res['skipped'])} skipped; "
          f"checkpatch: {tl}; {rel}/")
    if args.bench:
        files = sorted({f for m in res["meta"] for f in m["files"]})
        lines = 0
        for m in res["meta"]:
            with open(os.path.join(res["dir"], m["file"]), encoding="utf-8") as fh:
                lines += sum(1 for l in fh if l.startswith(("+", "-")) and not l.startswith(("+++", "---")))
        print(f"bench: {time.monotonic() - t0:.1f}s; {res['patches']} patches, {len(files)} files, "
              f"{lines} changed lines")
    res["findings"] = path
    return res


def main(argv=None, after=None):
    """after(result), when given, runs once a series was written (result: run()'s dict, with
    "dir" the series and "findings" the findings.json it came from)."""
    args = build_parser().parse_args(argv)
    try:
        res = run(args)
        if res and after:
            after(res)
        return 0
    except JanitorError as err:
        return report(err)
    except KeyboardInterrupt:
        print("CRITICAL: interrupted; previous patches left as they were", file=sys.stderr)
        return 130
