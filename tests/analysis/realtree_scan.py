"""One scan of Debian's 6.1 tree per predicate set per pytest process, shared by the
real-tree classification tests (tests/realtree/test_classify_*.py); the per-file spatch cache
under ~/.cache/atomic-janitor/ makes repeated sessions fast."""

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))


@functools.lru_cache(maxsize=None)
def scan(predicates):
    out = tempfile.mkdtemp(prefix="aj-realtree-")
    try:
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "scripts"))
        res = subprocess.run([sys.executable, "-m", "atomic_janitor", "scan", "--predicates", predicates,
                              "--output", out, "--keep-going", "--format", "json"],
                             env=env, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise RuntimeError(res.stderr[-2000:])
        with open(os.path.join(out, "linux-source-6.1", "findings.json"), encoding="utf-8") as fh:
            return json.load(fh)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def find(doc, file, function, expression=None):
    hits = [f for f in doc["findings"] if f["file"] == file and (f["function"] or f["macro"]) == function
            and (expression is None or f["expression"] == expression)]
    assert hits, f"no finding {file} {function} {expression!r}"
    return hits
