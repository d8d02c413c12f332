"""`make bench`: time the scan (cold and warm cache, detection and classification apart)
against the kernel's own `make coccicheck MODE=report` running the detection rule, and count
what the tree's macro file lets spatch parse that it could not before."""

import os
import resource
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from . import deps, family, macrofile, pipeline
from . import tree as treemod
from .analysis import classify as classifymod

RULE = os.path.join(os.path.dirname(__file__), "..", "..", "cocci", "in_atomic.cocci")


def _timed(fn):
    t0 = time.monotonic()
    out = fn()
    return time.monotonic() - t0, out


# Explicit calls, not `identifier fn = {...}`: spatch skips the files that cannot match
# only when the rule names its tokens (with an identifier list it parses the whole tree).
DETECT_ONLY = """// SPDX-License-Identifier: GPL-2.0-only
/// Detection only (the benchmark's baseline): every call of {names}.
// Confidence: High
// Options: --no-includes --include-headers

virtual report

@r depends on report@
position p;
@@
(
{calls}
)

@script:python depends on report@
p << r.p;
@@
coccilib.report.print_report(p[0], "context predicate use")
"""


def _coccicheck(tree, predicates, jobs, build, tmp):
    """The kernel's `make coccicheck MODE=report` over the whole tree with a detection-only
    rule for the same predicates: what the scan costs beyond finding the uses."""
    rule = os.path.join(tmp, "detect_only.cocci")
    names = sorted(family.expand(predicates))
    with open(rule, "w") as fh:
        fh.write(DETECT_ONLY.format(names=", ".join(n + "()" for n in names),
                                    calls="\n|\n".join(f"{n}@p(...)" for n in names)))
    res = subprocess.run(["make", "-s", f"O={build}", "coccicheck", f"COCCI={rule}", "MODE=report", f"J={jobs}"],
                         cwd=tree.root, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        return None
    return sum(1 for l in res.stdout.splitlines() if l.endswith("context predicate use"))


PARSE_BATCH = 24


def _parse_errors(root, files, macro_file, jobs):
    """(count, crashed): spatch's own count of the top-level definitions it could not parse
    (`--parse-c`, one BAD marker each) in `files`, with the given macro file or none, and
    how many files it could not process at all (a stack overflow on some 6.1 file ends a
    whole run; such a run is retried a file at a time, never read as "no errors")."""
    exe = deps.spatch_command()
    opts = ["--no-includes", "--include-headers"] + (["--macro-file", macro_file] if macro_file else [])

    def run(group):
        res = subprocess.run([*exe, "--parse-c", *opts, *group], cwd=root, capture_output=True, text=True,
                             errors="replace", check=False, env=deps.spatch_env())
        bad = sum(1 for l in (res.stdout + res.stderr).splitlines() if l.startswith("BAD:!!!!!"))
        return bad, res.returncode == 0

    def count(group):
        bad, ok = run(group)
        if ok:
            return bad, 0
        if len(group) == 1:
            return 0, 1
        out = [count([f]) for f in group]
        return sum(b for b, _c in out), sum(c for _b, c in out)

    batches = [files[i:i + PARSE_BATCH] for i in range(0, len(files), PARSE_BATCH)]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        out = list(pool.map(count, batches))
    return sum(b for b, _c in out), sum(c for _b, c in out)


def _parse_recovery(tree, files, jobs, tmp):
    """What the tree's macro file (macrofile.py) recovers in the files the cold scan parsed
    (the sites' files and their callers')."""
    macro_file = macrofile.build(tree, tmp)
    without, crashed = _parse_errors(tree.root, files, None, jobs)
    with_file, crashed2 = _parse_errors(tree.root, files, macro_file, jobs) if macro_file else (without, crashed)
    print(f"parse recovery: top-level definitions spatch could not parse in the {len(files)} files of the "
          f"call graph: {without} without the tree's macro file, {with_file} with it"
          + (f" (files spatch could not process at all: {crashed} and {crashed2})" if crashed or crashed2 else ""))


def bench(args):
    tree = treemod.resolve(args.ksrc)
    jobs = args.jobs or os.cpu_count() or 1
    timings = {}
    with tempfile.TemporaryDirectory(prefix="aj-bench-") as tmp:
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")     # a cold cache of our own
        try:
            # warm-files: the per-file caches only, as after an edit anywhere in the tree;
            # warm: nothing changed, the whole result is reused
            for label, reuse in (("cold", True), ("warm-files", False), ("warm", True)):
                lines = []
                t, _doc = _timed(lambda: pipeline.scan(tree.root, args.scope, args.predicates, jobs, None,
                                                      os.path.join(tmp, "out"), keep_going=True,
                                                      log=lines.append, reuse_result=reuse))
                timings[label] = t
                if label == "cold":
                    graph_files = list(classifymod.LAST_FILES)
                print(f"scan {label}: {t:.1f}s   " + " | ".join(l.strip() for l in lines if "classify" in l))
        finally:
            if old is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = old
        _parse_recovery(tree, graph_files, jobs, tmp)
        t, ok = _timed(lambda: _coccicheck(tree, args.predicates, jobs, os.path.join(tmp, "build"), tmp))
    print(f"coccicheck MODE=report J={jobs}, detection-only rule, whole tree: {t:.1f}s"
          + (f" ({ok} uses)" if ok is not None else " (failed)"))
    if ok is not None and t > 0:
        print(f"ratio cold scan / coccicheck: {timings['cold'] / t:.2f}; warm re-scan: {timings['warm']:.2f}s "
              f"(per-file caches only: {timings['warm-files']:.1f}s)")
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(f"peak memory (largest process): {peak / 1024:.0f} MiB")
