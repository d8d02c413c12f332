"""Stage "apply": a pristine work copy of KSRC (never the user's tree) and the series on top.

The copy is ``cp -al`` (hard links) when KSRC is on the same filesystem: safe because files are
only ever *replaced* (git apply unlinks and recreates; restore = unlink + copy), never written
through a link. Each patch is applied with ``git apply`` outside any repository (same engine as
``git am``, all-or-nothing per patch); the first one that fails stops verify and is named.
Files touched by the previous run are restored from KSRC with a fresh mtime, so kbuild rebuilds
exactly what changed between runs.
"""
import dataclasses
import email.header
import json
import os
import re
import shutil
from typing import Dict, List, Optional, Sequence, Tuple

from .common import Log, VerifyError, run


@dataclasses.dataclass
class Patch:
    index: int              # 1-based position in the series
    path: str
    name: str               # file name
    subject: str
    files: List[str]        # paths touched (new names), sorted
    created: List[str]
    deleted: List[str]
    changed_lines: Dict[str, List[int]]  # new-file line numbers of '+' lines / deletion points


def check_ksrc(ksrc: str) -> None:
    if not os.path.isdir(ksrc):
        raise VerifyError("tree", f"KSRC does not exist: {ksrc}",
                          ["set KSRC= to an unpacked kernel tree (default: the cached "
                           "linux-source-6.1, created by `make setup`)"])
    missing = [n for n in ("Makefile", "Kconfig") if not os.path.isfile(os.path.join(ksrc, n))]
    if missing:
        raise VerifyError("tree", f"KSRC is not a kernel tree (no {' or '.join(missing)}): {ksrc}",
                          ["point KSRC= at the top of a kernel source tree",
                           "for an out-of-tree module directory use KDIR=<module dir> and keep "
                           "KSRC= for the kernel it builds against"])


def _subject(text: str) -> str:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Subject:"):
            s = line[len("Subject:"):].strip()
            j = i + 1
            while j < len(lines) and lines[j].startswith((" ", "\t")):
                s += " " + lines[j].strip()
                j += 1
            s = str(email.header.make_header(email.header.decode_header(s)))
            return re.sub(r"^\[[^\]]*PATCH[^\]]*\]\s*", "", s)
        if line.startswith("diff --git"):
            break
    return ""


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_patch(path: str, index: int) -> Patch:
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    files, created, deleted = [], [], []
    changed: Dict[str, List[int]] = {}
    old = new = None
    cur: Optional[str] = None
    nline = 0
    old_left = new_left = 0
    in_diff = False
    for line in text.splitlines():
        if old_left > 0 or new_left > 0:
            # inside a hunk: the header's counts say where it ends (so the "-- " mail
            # signature after the last hunk is never taken for a removed line)
            if line.startswith("+"):
                if cur is not None:
                    changed.setdefault(cur, []).append(nline)
                nline += 1
                new_left -= 1
            elif line.startswith("-"):
                if cur is not None:
                    changed.setdefault(cur, []).append(nline)
                old_left -= 1
            elif line.startswith("\\"):
                pass
            else:
                nline += 1
                old_left -= 1
                new_left -= 1
            continue
        if line.startswith("diff --git "):
            in_diff = True
            cur = None
            continue
        if not in_diff:
            continue
        if line.startswith("--- "):
            old = line[4:].split("\t")[0]
            continue
        if line.startswith("+++ "):
            new = line[4:].split("\t")[0]
            if new == "/dev/null":
                name = old[2:] if old and old.startswith("a/") else old
                deleted.append(name)
                cur = None
            else:
                name = new[2:] if new.startswith("b/") else new
                if old == "/dev/null":
                    created.append(name)
                cur = name
            if name and name not in files:
                files.append(name)
            continue
        m = _HUNK.match(line)
        if m:
            nline = int(m.group(3))
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
            continue
    for k in changed:
        changed[k] = sorted(set(changed[k]))
    return Patch(index, path, os.path.basename(path), _subject(text), sorted(files),
                 sorted(created), sorted(deleted), changed)


def list_series(series: str) -> List[str]:
    """Patch files of a series directory, in order: those its `series` file lists, else the
    format-patch names (cover letter skipped)."""
    series = os.path.abspath(series)
    if os.path.isfile(series):
        return [series]
    if not os.path.isdir(series):
        raise VerifyError("series", f"no such series: {series}",
                          ["run `make patches` first, or pass SERIES=<dir of format-patch files>"])
    listed = os.path.join(series, "series")
    if os.path.isfile(listed):
        # make patches: one directory per maintainer tree, the order of all in `series`
        # (quilt's format: one path per line, relative to the directory)
        with open(listed, encoding="utf-8") as fh:
            names = [l.strip() for l in fh if l.strip() and not l.lstrip().startswith("#")]
        missing = [n for n in names if not os.path.isfile(os.path.join(series, n))]
        if missing:
            raise VerifyError("series", f"{listed} names a missing patch: {missing[0]}",
                              ["run `make patches` again"])
    else:
        names = sorted(n for n in os.listdir(series)
                       if n.endswith((".patch", ".diff")) and not n.startswith("0000-cover-letter"))
    if not names:
        raise VerifyError("series", f"series directory has no patch files: {series}",
                          ["expected NNNN-*.patch files from git format-patch"])
    return [os.path.join(series, n) for n in names]


class WorkTree:
    """The pristine copy. State in <root>/state.json: origin KSRC and files touched last time."""

    def __init__(self, ksrc: str, root: str, log: Log):
        self.ksrc = os.path.realpath(ksrc)
        self.root = root
        self.src = os.path.join(root, "src")
        self.state_path = os.path.join(root, "state.json")
        self.log = log

    def _state(self) -> dict:
        try:
            with open(self.state_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def _save(self, state: dict) -> None:
        tmp = self.state_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        os.replace(tmp, self.state_path)

    def prepare(self) -> str:
        """Make src a pristine copy of KSRC. Returns 'reused' or 'copied'."""
        check_ksrc(self.ksrc)
        os.makedirs(self.root, exist_ok=True)
        st = self._state()
        if st.get("origin") == self.ksrc and st.get("complete") and os.path.isdir(self.src):
            for rel in sorted(set(st.get("touched", []))):
                self.restore(rel)
            st["touched"] = []
            self._save(st)
            return "reused"
        if os.path.exists(self.src):
            shutil.rmtree(self.src)
        tmp = self.src + ".tmp"
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        p = run(["cp", "-al", self.ksrc, tmp], self.log)
        if p.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            p = run(["cp", "-a", "--reflink=auto", self.ksrc, tmp], self.log)
            if p.returncode != 0:
                raise VerifyError("apply", f"cannot copy KSRC to {tmp}",
                                  ["check free space in ~/.cache"], p.stdout.splitlines()[-2:])
        # an in-tree configured KSRC would make kbuild refuse O=: drop those (unlink only)
        for rel in (".config", "include/config", "include/generated", "arch/x86/include/generated"):
            path = os.path.join(tmp, rel)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.unlink(path)
        os.rename(tmp, self.src)
        self._save({"origin": self.ksrc, "complete": True, "touched": []})
        return "copied"

    def restore(self, rel: str) -> None:
        """Put back KSRC's version of rel as a fresh file (new inode, new mtime)."""
        dst = os.path.join(self.src, rel)
        orig = os.path.join(self.ksrc, rel)
        if os.path.lexists(dst):
            os.unlink(dst)
        if os.path.exists(orig):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(orig, dst)
            shutil.copymode(orig, dst)

    def note_touched(self, files: Sequence[str]) -> None:
        st = self._state()
        st["touched"] = sorted(set(st.get("touched", [])) | set(files))
        self._save(st)

    def append_line(self, rel: str, line: str) -> None:
        """Add a line to a file of the copy: written as a new file, because src shares its
        inodes with KSRC (cp -al), and restored from KSRC by the next prepare()."""
        self.note_touched([rel])
        path = os.path.join(self.src, rel)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        if line in text.splitlines():
            return
        os.unlink(path)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text + ("" if text.endswith("\n") or not text else "\n") + line + "\n")

    def apply(self, patch: Patch) -> Tuple[bool, str]:
        """git apply one patch (all or nothing). Returns (ok, message)."""
        self.note_touched(patch.files)
        env = {"GIT_CEILING_DIRECTORIES": os.path.dirname(self.src)}
        p = run(["git", "apply", "--check", "-p1", patch.path], self.log, cwd=self.src, env=env)
        if p.returncode != 0:
            return False, (p.stdout.strip().splitlines() or ["git apply failed"])[0]
        p = run(["git", "apply", "-p1", patch.path], self.log, cwd=self.src, env=env)
        if p.returncode != 0:
            return False, (p.stdout.strip().splitlines() or ["git apply failed"])[0]
        return True, "applied"


def check_kdir(kdir: str) -> None:
    if not os.path.isdir(kdir):
        raise VerifyError("tree", f"KDIR does not exist: {kdir}",
                          ["KDIR= is an out-of-tree module directory (with a Kbuild or Makefile)"])
    if not any(os.path.isfile(os.path.join(kdir, n)) for n in ("Kbuild", "Makefile")):
        raise VerifyError("tree", f"KDIR has no Kbuild or Makefile: {kdir}",
                          ["point KDIR= at the directory you would pass as M= to kbuild"])


class ModuleDir(WorkTree):
    """Work copy of an out-of-tree module directory (KDIR=). A real copy (cp -a), never
    hard links: kbuild writes objects in the M= directory and the compiler truncates an
    existing output file, which would write through a link into the user's directory."""

    def prepare(self) -> str:
        check_kdir(self.ksrc)
        os.makedirs(self.root, exist_ok=True)
        if os.path.exists(self.src):
            shutil.rmtree(self.src)
        p = run(["cp", "-a", self.ksrc, self.src], self.log)
        if p.returncode != 0:
            raise VerifyError("apply", f"cannot copy KDIR to {self.src}", [],
                              p.stdout.splitlines()[-2:])
        for dirpath, _, files in os.walk(self.src):
            for fn in files:
                if fn.endswith((".o", ".ko", ".mod", ".mod.c", ".cmd", ".order", ".symvers")):
                    os.unlink(os.path.join(dirpath, fn))
        self._save({"origin": self.ksrc, "complete": True, "touched": []})
        return "copied"
