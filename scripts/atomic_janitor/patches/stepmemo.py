"""What a fix step's spatch run made of a file, kept under ~/.cache/atomic-janitor/fix-steps/
by the digest of everything that run reads: spatch's version, the rule's text and options, the
-D values, the macro file's text, the anchor line, the file's name and text (the rules run with
--no-includes, so no other file is read). A series is rebuilt after every scan and every
option change, and most of its steps are the same runs as last time. Only a run that succeeded
is kept; a cache that cannot be read or written costs time, never a result."""

import hashlib
import os
import tempfile

from .. import tree as treemod


def key(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogateescape") if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


def _path(k):
    return os.path.join(treemod.cache_root(), "fix-steps", k[:2], k)


def load(k):
    """The file's text after the step, or None when this run was never kept."""
    try:
        with open(_path(k), "rb") as fh:
            return fh.read().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def save(k, text):
    path = _path(k)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8", "surrogateescape"))
        os.replace(tmp, path)
    except OSError:
        pass
