"""Fast textual prefilter: which files mention which names (as whole words).

spatch only runs on files that can match. The answer is cached per name and per file
fingerprint, so a warm re-scan greps nothing, and a changed file is re-read alone.
"""

import re
import subprocess
import sys

from . import deps
from .tree import walk_sources

GREP_BATCH = 2000
_RG = []
# every file, hidden or ignored too, its path on each line printed
_RG_OPTS = ("--no-config", "-H", "--no-heading", "--no-line-number", "--no-ignore", "--hidden", "--no-messages")


def _ripgrep():
    """rg's path, or None when the machine has none (grep does the searches then)."""
    if not _RG:
        _RG.append(deps.ripgrep())
    return _RG[0]


def _search_argv(names):
    """rg (every core) when there is one, else grep; both print path:word per hit.
    rg gets -w and a bare alternation: its \\b is Unicode-aware and 4x slower."""
    alt = "|".join(re.escape(n) for n in sorted(names))
    if _ripgrep():
        return [_ripgrep(), *_RG_OPTS, "-o", "-w", "-g", "*.c", "-g", "*.h", "-e", alt]
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


def _search_lines(root, rg_args, grep_args, sep=":"):
    """[(relpath, text)] of the lines that a search of the whole tree prints, by rg (its
    arguments rg_args) or else grep (grep_args)."""
    if _ripgrep():
        argv = [_ripgrep(), *_RG_OPTS, *rg_args, "."]
    else:
        argv = ["grep", "-rH", *grep_args, "."]
    res = subprocess.run(argv, cwd=root, capture_output=True, text=True, errors="replace", check=False)
    out = []
    for line in res.stdout.splitlines():
        path, found, rest = line.partition(sep)
        if found:
            out.append((sys.intern(path[2:] if path.startswith("./") else path), rest))
    return out


_FUNCTION_MACRO = r"^[ \t]*#[ \t]*define[ \t]+(\w+)\("


def _function_macro_headers(root):
    """{name: set(relpath)} of the headers with a function-like `#define name(`: one search
    of the tree (half a second on a kernel tree, instead of one a name)."""
    head = re.compile(_FUNCTION_MACRO)
    out = {}
    for path, text in _search_lines(
            root, ["-g", "*.h", "-e", "(?-u)" + _FUNCTION_MACRO],
            ["-E", "--include=*.h", _FUNCTION_MACRO.replace("[ \\t]", "[[:blank:]]").replace("\\w", "[A-Za-z0-9_]")]):
        m = head.match(text)
        if m:
            out.setdefault(m.group(1), set()).add(path)
    return out


_INCLUDE = r'#\s*include\s*[<"]([^>"]*/)?([^>"/]+)[>"]'


def _include_index(root):
    """{header file name: set(relpath)} of the files with an `#include` naming it: one
    search of the tree (two seconds on a kernel tree) instead of a search a link of every
    chain of headers that include each other."""
    directive = re.compile(_INCLUDE)
    out = {}
    for path, text in _search_lines(
            root, ["-o", "-g", "*.c", "-g", "*.h", "-e", _INCLUDE],
            ["-oE", "--include=*.c", "--include=*.h", '#[[:space:]]*include[[:space:]]*[<"]([^>"]*/)?[^>"/]+[>"]']):
        m = directive.match(text)
        if m:
            out.setdefault(m.group(2), set()).add(path)
    return out


_STRUCT_LINE = re.compile(r"\bstruct\s+(\w+)\s*(?:\{|$)")
_STRUCT_EOL = re.compile(r"\bstruct\s*$")
_TAG_OPENS = re.compile(r"\s*(\w+)\s*\{")


def _struct_index(root):
    """{struct tag: set(relpath)} of the files with a line that may open its definition:
    `struct tag {`, `struct tag` ending the line (the brace below), or `struct` ending the
    line with `tag {` on the next. A superset of the files where `struct tag {` is: the
    caller reads them for that itself."""
    out = {}
    prev = None                     # the file of the line before, when it ended with `struct`
    for path, text in _search_lines(
            root, ["--null", "-A1", "--no-context-separator", "-g", "*.c", "-g", "*.h",
                   "-e", r"(?-u)\bstruct(\s+\w*)?\s*(\{|$)"],
            ["-ZE", "-A1", "--no-group-separator", "--include=*.c", "--include=*.h",
             r"\bstruct([[:space:]]+[A-Za-z0-9_]*)?[[:space:]]*(\{|$)"], sep="\0"):
        if prev == path:
            m = _TAG_OPENS.match(text)
            if m:
                out.setdefault(m.group(1), set()).add(path)
        for m in _STRUCT_LINE.finditer(text):
            out.setdefault(m.group(1), set()).add(path)
        prev = path if _STRUCT_EOL.search(text) else None
    return out


class Unsearched(Exception):
    """Raised by files_with() inside Prefilter.settle() for names not searched for yet."""

    def __init__(self, names):
        super().__init__(", ".join(names))
        self.names = names


class Prefilter:
    def __init__(self, store, root):
        self.store = store
        self.root = root
        self.deferring = 0
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
        self._local = {}                                          # (key, name) -> set(relpath)
        self._macro_headers = None
        self._includes = None
        self._structs = None

    def files_with(self, names):
        """Sorted relpaths that mention any of `names`."""
        missing = [n for n in names if n not in self.words]
        if missing and self.deferring:
            raise Unsearched(missing)
        if missing:
            hits = _grep_names(self.root, missing)
            for w, fs in hits.items():
                self.words[w] = fs
            self.dirty = True
        out = set()
        for n in names:
            out |= self.words[n]
        return sorted(out)

    def files_with_in(self, names, key, candidates):
        """files_with(names) among `candidates` (a frozenset of relpaths: one driver's
        files, named by the hashable `key`). A name the whole tree was not searched for yet
        is searched for in those files alone, a small fraction of a whole-tree search (which
        costs about a second on a kernel tree). Either way the answer is the candidates that
        mention a name, so it does not depend on what was searched for before."""
        out = set()
        missing = []
        for n in names:
            if n in self.words:
                out |= self.words[n] & candidates
            elif (key, n) in self._local:
                out |= self._local[(key, n)]
            else:
                missing.append(n)
        if missing:
            for w, fs in _grep_names(self.root, missing, sorted(candidates)).items():
                self._local[(key, w)] = fs & candidates
                out |= self._local[(key, w)]
        return sorted(out)

    def function_macro_headers(self):
        """{name: set(relpath)}: the headers that #define name as a function-like macro."""
        if self._macro_headers is None:
            self._macro_headers = _function_macro_headers(self.root)
        return self._macro_headers

    def files_including(self, headers):
        """Sorted relpaths with an #include directive that names one of `headers` (file
        names, `foo.h`) in any path; the caller checks where each one leads."""
        if self._includes is None:
            self._includes = _include_index(self.root)
        out = set()
        for h in headers:
            out |= self._includes.get(h, set())
        return sorted(out)

    def struct_definers(self, tag):
        """Sorted relpaths that may define `struct tag {` (a superset: see _struct_index)."""
        if self._structs is None:
            self._structs = _struct_index(self.root)
        return sorted(self._structs.get(tag, ()))

    def settle(self, jobs):
        """{key: job()} for jobs {key: job}, with one search of the tree a pass for every
        name that any job asked for and that was not searched for yet: a job that asks for
        one is stopped (Unsearched) and run again after the search. A whole-tree search
        costs about the same for one name as for a thousand, and a chain of lookups (a
        variable's type, then its member's type...) would otherwise cost one search a link
        a job. So a job must keep nothing it made before its stop but finished answers."""
        done, todo = {}, dict(jobs)
        while todo:
            want = set()
            self.deferring += 1
            try:
                for key, job in list(todo.items()):
                    try:
                        done[key] = job()
                    except Unsearched as exc:
                        want.update(exc.names)
                        continue
                    del todo[key]
            finally:
                self.deferring -= 1
            self.files_with(sorted(want))
        return done

    def names_in(self, rel, names):
        """Which of `names` the file mentions."""
        return sorted(n for n in names if rel in self.words.get(n, ()))

    def save(self):
        if self.dirty:
            self.store.save("prefilter", {"stat": self.stat,
                                          "words": {w: sorted(fs) for w, fs in self.words.items()}})
