"""The commit that brought a site's test in, for a live-bug fix's Fixes: tag (issue 16):
only a git checkout has it; a release tarball leaves the tag out and the cover letter says so."""

import subprocess

from . import maintainers


def _git(root, *argv):
    res = subprocess.run(["git", "-C", root, *argv], capture_output=True, text=True, check=False)
    return res.stdout if res.returncode == 0 else ""


def introducing_commit(root, finding):
    """(sha, subject) of the commit that added the site's test, or None. `git log -S` finds
    the commits that change how often the expression occurs in the file; the oldest added
    it. Where the file holds the expression more than once, that commit may have added
    another copy: then the site's own line decides (`git blame`)."""
    if not maintainers.is_git(root):
        return None
    rel, expr = finding["file"], finding["expression"]
    try:
        with open(f"{root}/{rel}", encoding="utf-8", errors="replace") as fh:
            copies = fh.read().count(expr)
    except OSError:
        return None
    if copies == 1:
        out = _git(root, "log", "--reverse", "--format=%H%x09%s", "-S", expr, "--", rel).splitlines()
        if out:
            sha, _tab, subj = out[0].partition("\t")
            return sha, subj
    blame = _git(root, "blame", "--porcelain", "-L", f"{finding['line']},{finding['line']}", "--", rel).splitlines()
    if not blame:
        return None
    sha = blame[0].split()[0]
    subj = next((l[len("summary "):] for l in blame if l.startswith("summary ")), None)
    if set(sha) == {"0"} or subj is None:      # not committed yet
        return None
    return sha, subj


def fixes_tag(root, finding):
    """`Fixes: <12 hex> ("subject")` (Documentation/process/submitting-patches.rst), or None."""
    found = introducing_commit(root, finding)
    if not found:
        return None
    return f'Fixes: {found[0][:12]} ("{found[1]}")'
