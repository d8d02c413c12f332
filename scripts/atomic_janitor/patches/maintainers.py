"""Who gets each patch and how its Subject starts: the tree's own get_maintainer.pl and
git history (or, for a tree without history, the path)."""

import collections
import os
import re
import subprocess

# Path -> subsystem prefix, for trees without git history. Longest match wins; {d} is the
# driver's directory name, {f} the file name without extension.
PREFIXES = [
    ("drivers/gpu/drm/", "drm/{d}"),
    ("drivers/net/wireless/", "wifi: {d}"),
    ("drivers/net/ethernet/", "net: {d}"),
    ("drivers/net/", "net: {d}"),
    ("drivers/scsi/", "scsi: {d}"),
    ("drivers/usb/", "usb: {d}"),
    ("drivers/i2c/busses/", "i2c: {f}"),
    ("drivers/i2c/", "i2c: {f}"),
    ("drivers/xen/", "xen/{f}"),
    ("drivers/base/power/", "PM: {f}"),
    ("drivers/dma-buf/", "dma-buf"),
    ("drivers/tty/serial/", "serial: {d}"),
    ("drivers/input/", "Input: {d}"),
    ("drivers/media/", "media: {d}"),
    ("drivers/mmc/", "mmc: {d}"),
    ("drivers/misc/", "misc: {d}"),
    ("sound/soc/", "ASoC: {d}"),
    ("sound/", "ALSA: {d}"),
    ("include/drm/", "drm"),
]
GENERIC_DIRS = {"busses", "host", "core", "misc", "common", "src"}


def is_git(root):
    return os.path.isdir(os.path.join(root, ".git"))


def _from_path(rel):
    d = os.path.dirname(rel)
    name = os.path.basename(d)
    stem = os.path.splitext(os.path.basename(rel))[0]
    for pat, fmt in PREFIXES:
        if rel.startswith(pat):
            if fmt.endswith("{d}") and (d.rstrip("/") + "/" == pat or name in GENERIC_DIRS):
                base = fmt.split("{")[0].rstrip("/: ")
                return f"{base}: {stem}" if ":" in fmt else f"{base}/{stem}"
            if pat.startswith("drivers/i2c/") and stem.startswith("i2c-"):
                stem = stem[4:]
            return fmt.format(d=name, f=stem)
    parts = rel.split("/")
    if len(parts) > 2:
        return f"{parts[1]}: {name}"
    return parts[0]


def subject_prefix(root, files):
    """The prefix for a patch touching `files` (first one decides for a tree without git)."""
    if is_git(root):
        d = os.path.dirname(files[0])
        res = subprocess.run(["git", "-C", root, "log", "--no-merges", "-n", "40", "--format=%s", "--", d],
                             capture_output=True, text=True, check=False)
        counts = collections.Counter()
        for s in res.stdout.splitlines():
            if ": " in s and not s.startswith(("Revert", "Merge")):
                counts[s.rsplit(": ", 1)[0]] += 1
        if counts:
            return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return _from_path(files[0])


def recipients(root, patch_path):
    """(to, cc) from the tree's scripts/get_maintainer.pl, run on the patch file."""
    script = os.path.join(root, "scripts", "get_maintainer.pl")
    if not os.path.exists(script):
        return [], []
    argv = ["perl", script, "--no-git", "--no-git-fallback", "--no-tree" if not os.path.exists(
        os.path.join(root, "MAINTAINERS")) else "--tree", os.path.abspath(patch_path)]
    res = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    to, cc = [], []
    for line in res.stdout.splitlines():
        m = re.match(r"^(.*?)\s+\((.*)\)\s*$", line.strip())
        addr, role = (m.group(1), m.group(2)) if m else (line.strip(), "")
        if not addr or "@" not in addr:
            continue
        (to if role.startswith(("maintainer", "supporter")) else cc).append(addr)
    return to, cc
