"""Baseline: what changed since the scan a janitor reviewed (issue 14).

A finding is matched to the baseline by a key that survives line shifts: file, function (or
macro), form, predicate and the condition with its whitespace normalised. Each finding gets
`baseline_state` "new" or "unchanged"; the baseline's findings that match nothing are listed
in `baseline.gone`. With no baseline, `baseline_state` is null and `baseline` is null."""

import json
import os
import re

from .errors import JanitorError
from .findings import FILE_NAME, is_document

PREVIOUS = "findings.previous.json"


def key(f):
    return (f["file"], f.get("function") or f.get("macro") or "", f["form"], f["predicate"],
            re.sub(r"\s+", "", f.get("expression") or ""))


def load(path):
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as exc:
        raise JanitorError(f"cannot read baseline {path}: {exc.strerror}",
                           "give BASELINE= a findings.json written by make scan") from None
    except ValueError:
        raise JanitorError(f"baseline {path} is not JSON", "give BASELINE= a findings.json written by make scan") \
            from None
    if not is_document(doc):
        raise JanitorError(f"baseline {path} has no findings list", "give BASELINE= a findings.json written by make scan")
    return doc


def mark(doc, base, label):
    """Set baseline_state on every finding of `doc` and doc["baseline"] (or nulls)."""
    if base is None:
        for f in doc["findings"]:
            f["baseline_state"] = None
        doc["baseline"] = None
        return
    left = {}
    for f in base["findings"]:
        left.setdefault(key(f), []).append(f)
    for f in doc["findings"]:
        old = left.get(key(f))
        f["baseline_state"] = "unchanged" if old else "new"
        if old:
            old.pop()
    gone = [{"file": f["file"], "line": f["line"], "function": f.get("function") or f.get("macro"),
             "form": f["form"], "predicate": f["predicate"], "expression": f.get("expression")}
            for fs in left.values() for f in fs]
    doc["baseline"] = {"against": label, "gone": sorted(gone, key=lambda g: (g["file"], g["line"]))}


def previous(final_dir):
    """The findings of the scan this one replaces, if any."""
    path = os.path.join(final_dir, FILE_NAME)
    return path if os.path.exists(path) else None
