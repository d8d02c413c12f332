"""The whole scan's result, reused when nothing it could have read has changed.

The key covers every input of detection and classification: the tool's own code and rules,
spatch (its binary and standard macros), the predicates and the scope, and the size and
mtime of every file of the tree (any file may be read: a caller in another directory, a
header, Kconfig, MAINTAINERS). A stat of the whole tree is cheap next to the analysis
(under a second for 6.1's 78,000 files, warm), and any change, in the tree or in the tool,
runs the analysis again. So a reused result is the result that the analysis would give:
the class of a site does not depend on this cache (the metamorphic tests run cold and warm).
"""

import hashlib
import json
import os
import shutil

from . import cache

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NAME = "result"


def _tool_digest(h):
    for base in (HERE, os.path.join(REPO, "cocci")):
        for d, dirs, files in os.walk(base):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for f in sorted(files):
                if f.endswith((".py", ".cocci", ".h", ".txt", ".json")):
                    p = os.path.join(d, f)
                    h.update(os.path.relpath(p, REPO).encode() + b"\0")
                    with open(p, "rb") as fh:
                        h.update(hashlib.sha256(fh.read()).digest())
    spatch = shutil.which("spatch")
    for p in (spatch, "/usr/lib/coccinelle/standard.h", "/usr/lib/coccinelle/standard.iso"):
        try:
            st = os.stat(os.path.realpath(p)) if p else None
        except OSError:
            st = None
        h.update(f"{p}:{st.st_size if st else '-'}:{st.st_mtime_ns if st else '-'}\0".encode())


def _tree_digest(h, root):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            h.update(f"{os.path.relpath(p, root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())


def key(tree, predicates, scope, classify):
    h = hashlib.sha256()
    h.update(json.dumps({"root": tree.root, "predicates": list(predicates),
                         "scope": list(scope), "classify": bool(classify)},
                        sort_keys=True).encode())
    _tool_digest(h)
    _tree_digest(h, tree.root)
    return h.hexdigest()


def _slot(predicates, scope, classify):
    # one entry per option set, so that a changed tree replaces its entry instead of adding one
    return NAME + "-" + hashlib.sha256(json.dumps([list(predicates), list(scope), bool(classify)])
                                       .encode()).hexdigest()[:12]


def load(store: cache.Store, predicates, scope, classify, k):
    """The stored {"doc", "analysed_files", "spatch_runs", "timing"} for key k, or None."""
    ent = store.load(_slot(predicates, scope, classify))
    if ent.get("key") != k or "doc" not in ent:
        return None
    return ent


def save(store: cache.Store, predicates, scope, classify, k, doc, analysed_files, spatch_runs,
         timing):
    store.save(_slot(predicates, scope, classify),
               {"key": k, "doc": doc, "analysed_files": analysed_files,
                "spatch_runs": spatch_runs, "timing": timing})
