"""Which tree the last `make scan` into a reports root read, so that `make patches` with no
variables works on what was just scanned. Kept in the user cache (one file per reports
root), not in findings.json, whose content must not depend on where the tree lies, and not
in the reports root, which holds only reports."""

import hashlib
import json
import os

from . import atomicio
from .findings import MANUAL_REVIEW, patchable
from .tree import cache_root


def _path(reports_root):
    key = hashlib.sha256(os.path.abspath(reports_root).encode()).hexdigest()[:16]
    return os.path.join(cache_root(), "last-scan", key + ".json")


def write(reports_root, ksrc, tree_name):
    atomicio.write_text(_path(reports_root),
                        atomicio.dumps_json({"ksrc": ksrc, "tree": tree_name}))


def read(reports_root):
    """{"ksrc", "tree"} of the last scan under reports_root, or None."""
    try:
        with open(_path(reports_root), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("ksrc") else None


def class_line(doc, reports_dir):
    """The one-line verdict both stages print: what is patchable, and the next command."""
    recs = doc["findings"]
    n_patch = len(patchable(doc))
    manual = sum(1 for f in recs if f.get("class") == MANUAL_REVIEW)
    where = os.path.join(os.path.relpath(reports_dir), "summary.txt")
    if n_patch:
        return f"{len(recs)} sites, {n_patch} patchable -> make patches ({manual} need manual review: {where})"
    return f"{len(recs)} sites, 0 proven: {manual} need manual review ({where})"
