"""Branches that a context-guessing predicate decides, read from a function's text.

A sleeping call inside such a branch runs only when the guess says "may sleep": it is that
site's own branch, not evidence that the function sleeps whatever its context. Which names
count is the whole family (family.py), never the PREDICATES of the run, so that a
site's class does not change with the predicates scanned."""

import re

from .. import ctext
from ..family import FAMILY, KNOWN_WRAPPERS

_IF = re.compile(r"\bif\s*\(")
_GUESS = re.compile(r"\b(%s)\s*\(" % "|".join(sorted(set(FAMILY) | set(KNOWN_WRAPPERS))))
_WS = re.compile(r"\s*")
_BAIL = re.compile(r"^\s*\{?\s*(return\b[^;]*|goto\s+\w+);\s*\}?\s*$")


def _skip_ws(text, i):
    return _WS.match(text, i).end()


def _else_at(text, j):
    """The keyword `else` (not an identifier that starts with it) at offset j."""
    nxt = text[j + 4:j + 5]
    return text.startswith("else", j) and not (nxt.isalnum() or nxt == "_")


def _statement_end(text, i, stop):
    """End offset of the statement starting at i: a block, an if (with its else), or up to ';'."""
    i = _skip_ws(text, i)
    if i >= stop:
        return stop
    if text[i] == "{":
        return min(ctext.matching(text, i) + 1, stop)
    m = _IF.match(text, i)
    if m:
        close = ctext.matching(text, m.end() - 1, "(", ")")
        end = _statement_end(text, close + 1, stop)
        j = _skip_ws(text, end)
        if _else_at(text, j):
            end = _statement_end(text, j + 4, stop)
        return end
    depth = 0
    for j in range(i, stop):
        ch = text[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ";" and depth <= 0:
            return j + 1
    return stop


def guarded_lines(ff, function):
    """[(first line, last line)] of every then/else branch whose if-condition calls a
    context-guessing predicate, in `function` of the parsed file `ff`."""
    d = ff.defs.get(function)
    if not d:
        return []
    text = ff.text
    start = ff.offset(d["line"], 0)
    brace = text.find("{", start)
    if brace < 0:
        return []
    stop = ctext.matching(text, brace)
    out = []
    for m in _IF.finditer(text, brace, stop):
        close = ctext.matching(text, m.end() - 1, "(", ")")
        if not _GUESS.search(text, m.end(), close):
            continue
        then_end = _statement_end(text, close + 1, stop)
        out.append((ff.line_of(close + 1), ff.line_of(max(then_end - 1, close + 1))))
        if _BAIL.search(text[close + 1:then_end]):
            # the bail-out form: what follows runs only when the guess let it through
            out.append((ff.line_of(then_end), ff.line_of(stop)))
        j = _skip_ws(text, then_end)
        if _else_at(text, j):
            else_end = _statement_end(text, j + 4, stop)
            out.append((ff.line_of(j), ff.line_of(max(else_end - 1, j))))
    return out
