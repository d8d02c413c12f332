"""`make bench`: time the scan (cold and warm cache, detection and classification apart)
against the kernel's own `make coccicheck MODE=report` running the detection rule."""

import os
import resource
import subprocess
import tempfile
import time

from . import tree as treemod
from .scan import run as scanrun

RULE = os.path.join(os.path.dirname(__file__), "..", "..", "cocci", "in_atomic.cocci")


def _timed(fn):
    t0 = time.monotonic()
    out = fn()
    return time.monotonic() - t0, out


def _coccicheck(tree, jobs, build):
    """Over the default scope, directory by directory (M=): with one --dir over the whole
    6.1 tree spatch 1.1.1 segfaults with this rule."""
    for d in scanrun.DEFAULT_SCOPE:
        res = subprocess.run(["make", "-s", f"O={build}", "coccicheck", f"COCCI={os.path.realpath(RULE)}",
                              "MODE=report", f"M={os.path.join(tree.root, d.rstrip('/'))}", f"J={jobs}"],
                             cwd=tree.root, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            return None
    return True


def bench(args):
    tree = treemod.resolve(args.ksrc)
    jobs = args.jobs or os.cpu_count() or 1
    timings = {}
    with tempfile.TemporaryDirectory(prefix="aj-bench-") as tmp:
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")     # a cold cache of our own
        try:
            for label in ("cold", "warm"):
                lines = []
                t, _doc = _timed(lambda: scanrun.scan(tree.root, args.scope, args.predicates, jobs, None,
                                                      os.path.join(tmp, "out"), keep_going=True,
                                                      log=lines.append))
                timings[label] = t
                print(f"scan {label}: {t:.1f}s   " + " | ".join(l.strip() for l in lines if "classify" in l))
        finally:
            if old is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = old
        t, ok = _timed(lambda: _coccicheck(tree, jobs, os.path.join(tmp, "build")))
    print(f"coccicheck MODE=report J={jobs} (same rule, same scope): {t:.1f}s" + ("" if ok else " (failed)"))
    if ok and t > 0:
        print(f"ratio cold scan / coccicheck: {timings['cold'] / t:.2f}; warm re-scan: {timings['warm']:.2f}s")
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(f"peak memory (largest process): {peak / 1024:.0f} MiB")
