"""The function around a call that spatch did not record, read from the text alone.

Vendor code wraps statements in `#if`s that spatch cannot parse (`#ifdef A if (x) #else if (y)
#endif`), and spatch then drops the whole function. Such a call is still a call: the graph
follows it only where the text settles both ends, kernel style, and says so in the evidence:
- the function is delimited by a `{` and a `}` alone at the start of their lines, with no
  other such line between them and the call, and a head (`type name(params)`, possibly over
  several lines) right above the `{`;
- its body leaves no region open at the call, which graph.py decides: no call whose name
  may be a lock helper, no macro of the file whose body may open one, and no region
  primitive other than pairs that the call is not inside (closed_regions: the same lock
  taken and dropped in straight code, aic8800's `spin_lock_bh(&hw->cb_lock); ...
  spin_unlock_bh(&hw->cb_lock);` in a scan request that spatch drops); and it uses no macro as
  a loop header (`name(args) stmt;`) unless spatch reads that name as an iterator anyway:
  a header's `for (spin_lock(l), d = 1; d; spin_unlock(l), d = 0)` is what made spatch give
  up on such a function, and the text does not show the lock.
Anything else stays unknown."""

import bisect
import re

from .. import ctext

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
    __slots__ = ("name", "line", "static", "body", "params", "rows")

    def __init__(self, name, line, static, body, params, rows=()):
        self.name, self.line, self.static, self.body, self.params = name, line, static, body, params
        self.rows = rows            # [(1-based line, text)] of the body, directive lines too


def _pairs():
    """{acquire: release} of the region primitives whose pairing the text can check: the
    plain, _bh, _irq and _irqsave forms of the spinlock and rwlock families, the irq, bh,
    preempt and RCU calls. Any other primitive (a nested or seqlock form, a trylock) leaves
    the function unknown, as before."""
    out = {}
    for lock in ("spin", "raw_spin", "read", "write"):
        for acq, rel in (("", ""), ("_bh", "_bh"), ("_irq", "_irq"), ("_irqsave", "_irqrestore")):
            out[f"{lock}_lock{acq}"] = f"{lock}_unlock{rel}"
    out.update({"local_irq_save": "local_irq_restore", "local_irq_disable": "local_irq_enable",
                "local_bh_disable": "local_bh_enable", "preempt_disable": "preempt_enable",
                "rcu_read_lock": "rcu_read_unlock", "rcu_read_lock_bh": "rcu_read_unlock_bh"})
    return out


PAIRS = _pairs()
_JUMP = re.compile(r"\b(return|goto|break|continue)\b")


def _args(text, i):
    """The normalised argument text of the call whose `(` is at or after offset i."""
    j = text.find("(", i)
    k = ctext.matching(text, j, "(", ")")
    return "".join(text[j + 1:k].split()) if k < len(text) else None


def _statement_start(text, i):
    """Is offset i the start of a statement that runs whenever the code before it does
    (after `;`, `{` or `}`; not the body of an `if`, `else`, loop or label)?"""
    before = text[:i].rstrip()
    return not before or before[-1] in ";{}"


def closed_regions(tf, primitives):
    """[(first line, last line)] of the regions tf's body opens and closes again: a pair
    from PAIRS on the same lock (the same arguments), each call a statement of its own, the
    code between them straight (no directive line, no return, goto, break or continue, its
    braces balanced), innermost pairs first. None when some primitive is not in such a
    pair: the text does not settle what is held where."""
    # tf.body is the body's lines without the directive lines, joined
    lines = [ln for ln, t in tf.rows if not t.lstrip().startswith("#")]
    text = tf.body
    starts = [0]
    for t in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(t) + 1)

    def line_of(off):
        return lines[bisect.bisect_right(starts, off) - 1]

    directives = {ln for ln, t in tf.rows if t.lstrip().startswith("#")}
    stack, spans = [], []
    for m in primitives.finditer(text):
        name = m.group(1)
        if not re.match(r"\s*\(", text[m.end():m.end() + 20]):
            return None                 # named, not called (a pointer to it, a macro argument)
        args = _args(text, m.end())
        if args is None or not _statement_start(text, m.start()):
            return None
        if name in PAIRS:
            stack.append((name, args, m.start()))
            continue
        if not stack:
            return None
        acq, acq_args, at = stack.pop()
        if PAIRS[acq] != name or acq_args != args:
            return None
        between = text[at:m.start()]
        depth = 0
        for ch in between:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth < 0:
                return None
        first, last = line_of(at), line_of(m.start())
        if depth or _JUMP.search(between) or any(first < d < last for d in directives):
            return None
        spans.append((first, last))
    return None if stack else spans


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
    if not m or m.group("name") in _KEYWORDS or re.match(r"\s*\w+\s*\)\s*\(", m.group("params")):
        return None                     # `W(name)(params)`: a macro around the name, which may build another
    pre = m.group("pre") or ""
    if not pre.strip() and h > 0:
        # `static int\nname(...)`: the return type on a line of its own
        above = tl[h - 1].strip()
        if above and re.match(r"^[A-Za-z_][\w\s\*]*$", above):
            pre = above
    body = "\n".join(l for l in tl[o + 1:c] if not l.lstrip().startswith("#"))
    rows = [(k + 1, tl[k]) for k in range(o + 1, c)]
    return TextFunction(m.group("name"), h + 1, bool(re.search(r"\bstatic\b", pre)), body, m.group("params"),
                        rows)
