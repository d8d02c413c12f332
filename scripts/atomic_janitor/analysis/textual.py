"""The function around a call that spatch did not record, read from the text alone.

Vendor code wraps statements in `#if`s that spatch cannot parse (`#ifdef A if (x) #else if (y)
#endif`), and spatch then drops the whole function. Such a call is still a call: the graph
follows it only where the text settles both ends, kernel style, and says so in the evidence:
- the function is delimited by a `{` and a `}` alone at the start of their lines, with no
  other such line between them and the call, and a head (`type name(params)`, possibly over
  several lines) right above the `{`;
- its body opens no region, which graph.py decides (no region primitive, no call whose name
  may be a lock helper, no macro of the file whose body may open one), and uses no macro as
  a loop header (`name(args) stmt;`) unless spatch reads that name as an iterator anyway:
  a header's `for (spin_lock(l), d = 1; d; spin_unlock(l), d = 0)` is what made spatch give
  up on such a function, and the text does not show the lock.
Anything else stays unknown."""

import re

_OPEN = re.compile(r"^\{\s*$")
_CLOSE = re.compile(r"^\}\s*;?\s*$")
_HEAD = re.compile(r"^(?P<pre>[A-Za-z_][\w\s\*]*?)?\b(?P<name>[A-Za-z_]\w*)\s*\((?P<params>[^;{}=]*)\)\s*$", re.S)
_KEYWORDS = frozenset(("if", "for", "while", "switch", "return", "sizeof", "do", "else", "case"))


# Coccinelle's own guess of an iterator from its name (parsing_hacks.ml, regexp_foreach):
# spatch parses `name(args) stmt` for these, so a parsed function shows the same gap.
_ITERATOR_NAME = re.compile(r"for_?each|for_?all|iterate|loop|walk|scan|each|for", re.I)
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def loop_headers(body):
    """Names used as a loop header in body (`name(args) stmt` or `name(args) {`) that
    spatch would not read as iterators."""
    out = set()
    for m in _CALL.finditer(body):
        name = m.group(1)
        if name in _KEYWORDS or _ITERATOR_NAME.search(name):
            continue
        depth, j = 0, m.end() - 1
        while j < len(body):
            if body[j] == "(":
                depth += 1
            elif body[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        k = j + 1
        while k < len(body) and body[k] in " \t\n\\":
            k += 1
        if k < len(body) and (body[k] == "{" or body[k].isalpha() or body[k] == "_"):
            out.add(name)
    return out


class TextFunction:
    __slots__ = ("name", "line", "static", "body", "params")

    def __init__(self, name, line, static, body, params):
        self.name, self.line, self.static, self.body, self.params = name, line, static, body, params


def enclosing(ff, line):
    """The TextFunction around 1-based `line` of ff, or None when the text does not settle it."""
    tl = ff.text_lines
    i = line - 1
    if i >= len(tl) or _OPEN.match(tl[i]) or _CLOSE.match(tl[i]):
        return None
    o = i - 1
    while o >= 0 and not _OPEN.match(tl[o]):
        if _CLOSE.match(tl[o]):
            return None                  # the call is after a function's end: not in one
        o -= 1
    c = i + 1
    while c < len(tl) and not _CLOSE.match(tl[c]):
        if _OPEN.match(tl[c]):
            return None
        c += 1
    if o < 0 or c >= len(tl):
        return None
    # The head: its last line is right above the `{`; it starts at the first line above
    # that begins in column 0 (parameters continue on indented lines).
    h = o - 1
    while h >= 0 and tl[h][:1] in (" ", "\t") and tl[h].strip():
        h -= 1
    if h < 0 or not tl[h][:1].strip() or tl[h].startswith("#"):
        return None
    head = " ".join(l.strip() for l in tl[h:o])
    m = _HEAD.match(head)
    if not m or m.group("name") in _KEYWORDS:
        return None
    pre = m.group("pre") or ""
    if not pre.strip() and h > 0:
        # `static int\nname(...)`: the return type on a line of its own
        above = tl[h - 1].strip()
        if above and re.match(r"^[A-Za-z_][\w\s\*]*$", above):
            pre = above
    body = "\n".join(l for l in tl[o + 1:c] if not l.lstrip().startswith("#"))
    return TextFunction(m.group("name"), h + 1, bool(re.search(r"\bstatic\b", pre)), body, m.group("params"))
