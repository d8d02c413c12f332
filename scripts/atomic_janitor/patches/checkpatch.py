"""Run the tree's scripts/checkpatch.pl --strict on every patch and tally the result."""

import os
import re
import subprocess

# b4's flags plus --strict: what a maintainer who runs checkpatch --strict sees
FLAGS = ["--strict", "-q", "--terse", "--no-summary", "--mailback", "--showfile"]
SIGNOFF_MISSING = "Missing Signed-off-by: line(s)"


def check(root, patch_path):
    """List of (severity, message) lines; [] when the patch is clean."""
    script = os.path.join(root, "scripts", "checkpatch.pl")
    if not os.path.exists(script):
        return None
    res = subprocess.run(["perl", script, *FLAGS, os.path.abspath(patch_path)], cwd=root,
                         capture_output=True, text=True, check=False)
    out = []
    for line in res.stdout.splitlines():
        m = re.search(r"\b(ERROR|WARNING|CHECK):\s*(.*)$", line)
        if m:
            msg = m.group(2)
            where = line[:m.start()].rstrip(": ")
            out.append((m.group(1), f"{os.path.basename(where)}: {msg}" if where else msg))
    return out


def verdict(messages):
    if messages is None:
        return "not-run"
    sev = {s for s, _ in messages}
    return "Error" if "ERROR" in sev else "Warning" if sev & {"WARNING", "CHECK"} else "Success"


def only_signoff(messages):
    return bool(messages) and all(SIGNOFF_MISSING in m for _s, m in messages)
