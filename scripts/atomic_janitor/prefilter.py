"""Fast textual prefilter: which files mention which names (as whole words).

spatch only runs on files that can match. The answer is cached per name and per file
fingerprint, so a warm re-scan greps nothing, and a changed file is re-read alone.
"""

import re
import subprocess

from . import deps
from .tree import walk_sources

GREP_BATCH = 2000
_RG = []


def _search_argv(names):
    """rg (every core) when there is one, else grep; both print path:word per hit.
    rg gets -w and a bare alternation: its \\b is Unicode-aware and 4x slower."""
    alt = "|".join(re.escape(n) for n in sorted(names))
    if not _RG:
        _RG.append(deps.ripgrep())
    if _RG[0]:
        return [_RG[0], "--no-config", "-o", "-w", "-H", "--no-heading", "--no-line-number", "--no-ignore",
                "--hidden", "--no-messages", "-g", "*.c", "-g", "*.h", "-e", alt]
    return ["grep", "-rIoHE", "--include=*.c", "--include=*.h", r"\b(" + alt + r")\b"]


def _grep_names(root, names, files=None):
    """{name: set(relpath)} for whole-word mentions; files=None means the whole tree."""
    found = {n: set() for n in names}
    if not names:
        return found
    base = _search_argv(names)
    batches = [["."]] if files is None else [files[i:i + GREP_BATCH] for i in range(0, len(files), GREP_BATCH)]
    for batch in batches:
        if not batch:
            continue
        argv = base + ["--"] + list(batch)
        res = subprocess.run(argv, cwd=root, capture_output=True, text=True, errors="replace", check=False)
        for line in res.stdout.splitlines():
            path, _, word = line.rpartition(":")
            if path.startswith("./"):
                path = path[2:]
            if word in found:
                found[word].add(path)
    return found


class Prefilter:
    def __init__(self, store, root):
        self.store = store
        self.root = root
        self.inventory = walk_sources(root)                       # [(rel, size, mtime)]
        cached = store.load("prefilter")
        old_stat = cached.get("stat", {})
        self.words = {w: set(fs) for w, fs in cached.get("words", {}).items()}
        now = {rel: [size, mtime] for rel, size, mtime in self.inventory}
        changed = sorted(rel for rel, st in now.items() if old_stat.get(rel) != st)
        gone = set(old_stat) - set(now)
        if self.words and (changed or gone):
            for fs in self.words.values():
                fs.difference_update(gone)
                fs.difference_update(changed)
            if changed:
                hits = _grep_names(root, list(self.words), changed)
                for w, fs in hits.items():
                    self.words[w] |= fs
        self.stat = now
        self.dirty = bool(changed or gone)

    def files_with(self, names):
        """Sorted relpaths that mention any of `names`."""
        missing = [n for n in names if n not in self.words]
        if missing:
            hits = _grep_names(self.root, missing)
            for w, fs in hits.items():
                self.words[w] = fs
            self.dirty = True
        out = set()
        for n in names:
            out |= self.words[n]
        return sorted(out)

    def names_in(self, rel, names):
        """Which of `names` the file mentions."""
        return sorted(n for n in names if rel in self.words.get(n, ()))

    def save(self):
        if self.dirty:
            self.store.save("prefilter", {"stat": self.stat,
                                          "words": {w: sorted(fs) for w, fs in self.words.items()}})
