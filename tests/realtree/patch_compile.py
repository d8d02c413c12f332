"""Each patch of a series compiles, checked by make verify's own compile stage (one compile
test): `qemu-verify run --compile-only` on a pristine copy of the tree, each touched file
rebuilt with W=1 after every patch, in the test kernel's config or under the first
configuration of the compile matrix (qemu-verify/matrix.py) that enables it."""

import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def verify_compile(ksrc, series, out):
    """result.json of `qemu-verify run --compile-only` (also when it failed)."""
    p = subprocess.run([sys.executable, os.path.join(REPO, "qemu-verify"), "run",
                        "--compile-only", "--ksrc", ksrc, "--series", series, "--output", out],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    path = os.path.join(out, "result.json")
    if not os.path.exists(path):
        raise AssertionError(f"verify wrote no result.json:\n{p.stdout[-3000:]}")
    with open(path) as fh:
        res = json.load(fh)
    res["_stdout"] = p.stdout
    return res
