"""The scan stage's output: detected uses turned into findings.json records (the contract in
findings.py), sorted and stable, every one still `unclassified`."""

import hashlib
import os

from .. import ctext
from ..cache import file_sha
from ..findings import SCHEMA_VERSION, TOOL, UNCLASSIFIED, subsystem
from . import detect, forms


def _expression(use, macro_body=None):
    """The decision the call is part of: the innermost ternary/if condition, else the assignment,
    else (a use in an expression macro) the macro's body."""
    for kind in ("ternary", "if", "call-arg", "assign", "return"):
        for c in use.constructs:
            if c["kind"] == kind and c.get("cond"):
                if kind == "call-arg" and c.get("callee") in forms.TRANSPARENT_CALLS:
                    continue
                return ctext.strip_parens(ctext.normalise(c["cond"]))
    if macro_body and ctext.is_expression_macro(macro_body):
        return ctext.strip_parens(ctext.normalise(forms.tokens(macro_body)))
    return f"{use.called}()"


def _macro_body(lines, use):
    if not use.macro:
        return None
    m = ctext.macro_at(lines, use.line)
    return m[2] if m else None


def _pos(use):
    return (use.file, use.line, use.col)


def build(tree, detection, predicates, scope, read_lines):
    """findings.json document (without classification: class `unclassified`)."""
    wrappers = detection.wrappers
    records = []
    for use in detection.uses:
        if not any(use.file == s.rstrip("/") or use.file.startswith(s.rstrip("/") + "/") or s == "."
                   for s in scope):
            continue
        lines = read_lines(use.file)
        owner = use.macro or use.function
        w = wrappers.get(owner)
        is_wrapper = w is not None and not w.asserts and (use.file, owner) == (w.file, w.name)
        assert_macro = use.macro is not None and use.macro in detection.assert_macros
        if assert_macro and _pos(detection.assert_macros[use.macro]) != _pos(use):
            continue
        awt = detect.atomic_when_true(use.called, wrappers)
        form, detail = forms.classify(use.constructs, is_wrapper=is_wrapper, assert_macro=assert_macro,
                                      called=use.called, atomic_when_true=awt,
                                      macro_body=_macro_body(lines, use))
        detail["true_means"] = "atomic" if awt else "may-sleep"
        via = (wrappers[use.called].via if use.called in wrappers else [use.called])
        rec = {
            "file": use.file, "line": use.line, "col": use.col, "colend": use.colend,
            "function": use.function, "macro": use.macro,
            "predicate": via[-1], "called": use.called, "via": via,
            "expression": _expression(use, _macro_body(lines, use)),
            "form": form, "form_detail": detail,
            "class": UNCLASSIFIED, "confidence": None, "reason": None,
            "evidence": [], "fix": None, "live_bug": None,
            "config": ctext.config_at(lines, use.line),
            "subsystem": subsystem(use.file, tree.kind),
            "snippet": ctext.snippet(lines, use.line),
        }
        records.append(rec)
    records.sort(key=lambda r: (r["file"], r["line"], r["col"]))
    seen = {}
    for rec in records:
        key = (rec["file"], rec["function"] or rec["macro"] or "", rec["expression"])
        n = seen.get(key, 0)
        seen[key] = n + 1
        rec["id"] = hashlib.sha256("\0".join([*key, str(n)]).encode()).hexdigest()[:16]
    files = sorted({r["file"] for r in records} | {w.file for w in wrappers.values()})
    return {
        "schema": SCHEMA_VERSION,
        "tool": TOOL,
        "tree": tree.to_json(),
        "predicates": sorted(predicates),
        "scope": list(scope),
        "wrappers": [wrappers[n].to_json() for n in sorted(wrappers)],
        "files": {f: file_sha(os.path.join(tree.root, f)) for f in files},
        "not_analysed": detection.not_analysed,
        "findings": records,
    }

