"""Per-tree cache under ~/.cache/atomic-janitor/scan/: file fingerprints and per-file results.

A file's entry is reused when its size and mtime are unchanged (fast path); otherwise its
content hash decides, so a touched-but-identical file costs one read and no re-analysis.
"""

import hashlib
import json
import os

from . import tree as treemod
from .atomicio import write_text


def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Store:
    """One JSON document per (tree, purpose, key); loaded lazily, saved atomically."""

    def __init__(self, tree, enabled=True):
        key = hashlib.sha256(tree.root.encode()).hexdigest()[:12]
        self.dir = os.path.join(treemod.cache_root(), "scan", f"{tree.name}-{key}")
        self.enabled = enabled

    def load(self, name):
        if not self.enabled:
            return {}
        try:
            with open(os.path.join(self.dir, name + ".json"), encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return {}

    def save(self, name, data):
        if not self.enabled:
            return
        try:
            write_text(os.path.join(self.dir, name + ".json"), json.dumps(data, sort_keys=True))
        except Exception:  # a cache that cannot be written only costs time next run
            pass


class Fingerprints:
    """relpath -> sha256, with a size+mtime fast path persisted between runs."""

    def __init__(self, store, root):
        self.store = store
        self.root = root
        self.data = store.load("fingerprints")
        self.dirty = False

    def sha(self, rel, size=None, mtime=None):
        path = os.path.join(self.root, rel)
        if size is None:
            st = os.stat(path)
            size, mtime = st.st_size, st.st_mtime_ns
        ent = self.data.get(rel)
        if ent and ent[0] == size and ent[1] == mtime:
            return ent[2]
        digest = file_sha(path)
        self.data[rel] = [size, mtime, digest]
        self.dirty = True
        return digest

    def save(self):
        if self.dirty:
            self.store.save("fingerprints", self.data)
