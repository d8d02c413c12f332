"""Who gets each patch and how its Subject starts: the tree's own get_maintainer.pl and
git history (or, for a tree without history, the path)."""

import collections
import fnmatch
import os
import re
import subprocess

# Subsystem directory -> the prefix its maintainers use, for trees without git history.
# Longest match wins. {d} is the driver (see _driver), {f} the file name without extension;
# a format without {d} names the file, or nothing. `inner` says where a driver directory
# sits when MAINTAINERS does not tell: the first directory below the subsystem, or the
# file's own (vendor/driver layouts).
PREFIXES = [
    ("drivers/gpu/drm/", "drm/{d}", "first", "drm"),
    ("drivers/net/wireless/", "wifi: {d}", "last", None),
    ("drivers/net/ethernet/", "net: {d}", "last", None),
    ("drivers/net/wwan/", "net: wwan: {d}", "first", None),
    ("drivers/net/", "net: {d}", "first", None),
    ("drivers/scsi/", "scsi: {d}", "first", "scsi: core"),
    ("drivers/usb/", "usb: {d}", "first", None),
    ("drivers/i2c/", "i2c: {f}", None, None),
    ("drivers/xen/", "xen/{f}", None, None),
    ("drivers/base/power/", "PM: {f}", None, None),
    ("drivers/dma-buf/", "dma-buf", None, None),
    ("drivers/tty/serial/", "serial: {d}", "first", None),
    ("drivers/input/", "Input: {d}", "first", None),
    ("drivers/media/", "media: {d}", "last", None),
    ("drivers/mmc/", "mmc: {d}", "first", None),
    ("drivers/misc/", "misc: {d}", "first", None),
    ("drivers/staging/", "staging: {d}", "first", None),
    ("drivers/clocksource/", "clocksource/drivers/{f}", None, None),
    ("drivers/irqchip/", "irqchip/{f}", None, None),
    ("drivers/infiniband/", "RDMA/{d}", "first", None),
    ("drivers/s390/", "s390/{d}", "first", None),
    ("drivers/firmware/", "firmware: {d}", "first", None),
    ("sound/soc/", "ASoC: {d}", "first", None),
    ("sound/pci/", "ALSA: {d}", "first", None),
    ("sound/isa/", "ALSA: {d}", "first", None),
    ("sound/", "ALSA: {d}", "first", None),
    ("include/drm/", "drm", None, None),
]
GENERIC_DIRS = {"busses", "host", "core", "misc", "common", "src", "codecs", "ulp", "hw", "sw", "os_dep",
                "include", "hal", "platform"}
# File-name prefixes that repeat the subsystem (irqchip/irq-gic-v4.c is "irqchip/gic-v4").
STEM_PREFIX = {"drivers/i2c/": "i2c-", "drivers/irqchip/": "irq-"}


def is_git(root):
    return os.path.isdir(os.path.join(root, ".git"))


_MAINT = {}


def maintainers_patterns(root):
    """The F: patterns of the tree's MAINTAINERS (empty without one)."""
    if root not in _MAINT:
        pats = []
        try:
            with open(os.path.join(root, "MAINTAINERS"), encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if line.startswith("F:"):
                        pats.append(line[2:].strip())
        except OSError:
            pass
        _MAINT[root] = pats
    return _MAINT[root]


def _covers(pat, rel):
    """get_maintainer.pl's F: semantics: a directory covers what is below it, globs match."""
    if pat.endswith("/"):
        return rel.startswith(pat)
    if any(c in pat for c in "*?["):
        return fnmatch.fnmatch(rel, pat)
    return rel == pat or rel.startswith(pat + "/")


def _driver(rel, sub, inner, patterns):
    """The driver a file belongs to: the deepest MAINTAINERS entry below the subsystem
    that covers it when it is a directory, else the path (the file's own name when it sits
    right in the subsystem or in a generic directory such as host/ or busses/)."""
    stem = os.path.splitext(os.path.basename(rel))[0]
    best = None
    for pat in patterns:
        if pat.startswith(sub) and len(pat) > len(sub) and _covers(pat, rel):
            if best is None or pat.count("/") > best.count("/") or \
                    (pat.count("/") == best.count("/") and len(pat) > len(best)):
                best = pat
    comps = [c for c in rel[len(sub):].split("/")[:-1] if c not in GENERIC_DIRS]
    from_path = (comps[-1] if inner == "last" else comps[0]) if comps else None
    if best is not None and (best.endswith("/") or (not any(c in best for c in "*?[") and best != rel)):
        # A directory entry names the driver, unless it is a vendor's umbrella above it.
        if inner == "last" and from_path and best.rstrip("/").count("/") < os.path.dirname(rel).count("/"):
            return from_path
        return os.path.basename(best.rstrip("/"))
    return from_path or stem


def _from_path(rel, patterns=()):
    stem = os.path.splitext(os.path.basename(rel))[0]
    for sub, fmt, inner, direct in PREFIXES:
        if not rel.startswith(sub):
            continue
        if STEM_PREFIX.get(sub) and stem.startswith(STEM_PREFIX[sub]):
            stem = stem[len(STEM_PREFIX[sub]):]
        if "{d}" not in fmt:
            return fmt.format(f=stem)
        if direct and "/" not in rel[len(sub):]:
            return direct
        return fmt.format(d=_driver(rel, sub, inner, patterns))
    parts = rel.split("/")
    if parts[0] == "drivers" and len(parts) > 2:
        sub = "/".join(parts[:2]) + "/"
        return f"{parts[1]}: {_driver(rel, sub, 'first', patterns)}"
    return parts[0] if len(parts) > 1 else stem


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
    return _from_path(files[0], maintainers_patterns(root))


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


# Trees whose documentation asks for the tree's name in the subject: [PATCH net-next]
# (Documentation/process/maintainer-netdev.rst), [PATCH bpf-next] (Documentation/bpf/
# bpf_devel_QA.rst). Other subsystems take plain [PATCH].
SUBJECT_TAGS = {"netdev/net.git": "net", "netdev/net-next.git": "net-next",
                "bpf/bpf.git": "bpf", "bpf/bpf-next.git": "bpf-next"}
MAINLINE = "torvalds/linux.git"
LKML = "linux-kernel@vger.kernel.org"

_SECTIONS = {}


def sections(root):
    """MAINTAINERS as [(name, {letter: [values]})], in file order (empty without one)."""
    if root not in _SECTIONS:
        out, cur = [], None
        try:
            with open(os.path.join(root, "MAINTAINERS"), encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    m = re.match(r"^([A-Z]):\s*(.*?)\s*$", line)
                    if m and cur is not None:
                        cur[1].setdefault(m.group(1), []).append(m.group(2))
                    elif line.strip() and not m:
                        cur = (line.strip(), {})
                        out.append(cur)
        except OSError:
            pass
        _SECTIONS[root] = [s for s in out if "F" in s[1]]
    return _SECTIONS[root]


def _depth(pat):
    """get_maintainer.pl's pattern depth: its slashes, one more for a file or glob."""
    return pat.count("/") + (0 if pat.endswith("/") else 1)


def _matching(root, rel):
    """The sections covering rel, most specific first (get_maintainer.pl's order; ties in
    file order, where get_maintainer.pl leaves them to its hash)."""
    hits = []
    for i, (name, ent) in enumerate(sections(root)):
        if any(_covers(x, rel) for x in ent.get("X", ())):
            continue
        depths = [_depth(p) for p in ent["F"] if _covers(p, rel)]
        if depths:
            hits.append((-max(depths), i, name, ent))
    return [(name, ent) for _d, _i, name, ent in sorted(hits)]


def _repo(url):
    """'netdev/net-next.git' from a T: git URL (the last two path components)."""
    path = url.split()[1] if url.startswith("git ") else url
    parts = [p for p in re.split(r"[/:]", path.split(" ")[0]) if p]
    name = parts[-1] if parts[-1].endswith(".git") else parts[-1] + ".git"
    return (parts[-2] + "/" if len(parts) > 1 else "") + name


def _slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "unnamed"


def tree_of(root, rel, bugfix=False):
    """The tree that takes a patch to rel: {"slug", "tree" (git URL or None), "tag" (the
    subject's tree name or None), "list", "section"}. The most specific MAINTAINERS section
    with a T: git entry decides; of a fixes/-next pair a bug fix goes to the fixes tree and
    anything else to -next. Without one (mainline only), the subsystem's mailing list names
    the series, or else the section; without MAINTAINERS, one series for everything."""
    found = _matching(root, rel)
    if not found:
        return {"slug": "no-maintainers-file", "tree": None, "tag": None, "list": None, "section": None}
    lst = next((l.split()[0] for _n, e in found for l in e.get("L", ()) if l.split()[0] != LKML), None)
    for name, ent in found:
        urls = [t for t in ent.get("T", ()) if t.startswith("git ") and _repo(t) != MAINLINE]
        if not urls:
            continue
        repos = [_repo(u) for u in urls]
        pick = urls[0]
        for u, r in zip(urls, repos):
            base = r[:-len("-next.git")] + ".git" if r.endswith("-next.git") else None
            if base in repos:
                pick = urls[repos.index(base)] if bugfix else u
                break
        repo = _repo(pick)
        return {"slug": _slug(repo[:-len(".git")]), "tree": pick.split()[1], "tag": SUBJECT_TAGS.get(repo),
                "list": lst, "section": name}
    if lst:
        return {"slug": _slug(lst.split("@")[0]), "tree": None, "tag": None, "list": lst, "section": found[0][0]}
    # no tree, no list: the maintainers of the most specific section take it
    return {"slug": _slug(found[0][0]), "tree": None, "tag": None, "list": None, "section": found[0][0]}
