"""`make help` names every target that make knows and every variable the Makefiles read."""

import os
import re
import subprocess

from ajtest import REPO


def _make(*args):
    return subprocess.run(["make", "--no-print-directory", "-C", REPO, *args], capture_output=True,
                          text=True, check=False)


def test_help_lists_every_target_and_variable():
    db = _make("-pq", "-f", "Makefile", "help").stdout
    targets = set()
    for line in db.split("# Files")[-1].splitlines():
        m = re.match(r"^([a-z][a-z0-9-]*):", line)
        if m and m.group(1) not in ("makefile",):
            targets.add(m.group(1))
    assert {"scan", "test", "patches", "verify"} <= targets
    text = _make("help").stdout
    listed = set(re.findall(r"^  ([a-z][a-z0-9-]*) ", text, re.M))
    assert targets <= listed, sorted(targets - listed)
    mk = "".join(open(os.path.join(REPO, f)).read()
                 for f in ("Makefile", "scripts/patches.mk", "qemu-verify/verify.mk"))
    variables = set(re.findall(r"^([A-Z][A-Z_]*)\s*\?=", mk, re.M))
    shown = set(re.findall(r"\b([A-Z][A-Z_]*)=", text))
    assert variables <= shown, sorted(variables - shown)


def test_makefile_points_to_files_that_exist():
    with open(os.path.join(REPO, "Makefile")) as fh:
        head = fh.read(400)
    assert "DESIGN.md section" not in head
