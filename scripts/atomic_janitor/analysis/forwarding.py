"""A function's address passed to a function of the driver's own, which passes it on: the
registration wrappers vendor drivers write (macro_args.py reads the macro ones). Realtek's
`_init_timer(ptimer, padapter, pfunc, cntx)` stores `ptimer->function = pfunc`; Broadcom's
`wl_ext_event_register(dev, dhd, event, cb_func, data, prio)` stores `leaf->cb_func =
cb_func`, and its deregister counterpart only compares `node->cb_func == cb_func`.

What a definition does with the parameter is read from the uses of its name in the body.
Each use is one the graph already knows how to follow (a call of the parameter, a store
into a member, an argument of another call) or a test that reads nothing out (`if (fn)`,
`e->fn == fn`); the graph treats anything else as an escape."""

import re

from .. import ctext
from .facts import textual_mentions
from .member_calls import _looked_at

MAX_FORWARD_DEPTH = 4       # wrappers of wrappers; deeper chains end as unknown


def split_params(params):
    """The parameters of a definition's parameter list, split at its top-level commas."""
    out, depth, cur = [], 0, []
    for ch in params or "":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out


def param_name(param):
    """The name a parameter declares: `void *cb_func` -> cb_func, `void (*fn)(void *)` -> fn;
    None for an unnamed one (`void *`), `void` or `...`."""
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", param)
    if m:
        return m.group(1)
    m = re.search(r"(?<![\w*])\s*\**\s*([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*$", param)
    words = re.findall(r"[A-Za-z_]\w*", param)
    if not m or len(words) < 2 or m.group(1) in _TYPE_WORDS:
        return None
    return m.group(1)


_TYPE_WORDS = {"void", "int", "char", "short", "long", "unsigned", "signed", "float", "double", "const",
               "volatile", "struct", "union", "enum", "bool"}


def definitions(text, name):
    """[(start, end of the parameter list, static?)] of each definition of function `name`
    in text (comments blanked): a type, the name, its parameters, then the body's `{`.
    None when a head is followed by anything else than its body or a `;` (an attribute
    macro, `__must_hold(x)`): a definition this reader would miss."""
    out = []
    for m in re.finditer(r"(?<![\w.>])%s\s*\(" % re.escape(name), text):
        head = _head_before(text, m.start())
        if head is None or re.search(r"[=(,]", head) or not re.search(r"[A-Za-z_]\w*[\s*]*$", head):
            continue                        # no type before the name: not a head
        close = ctext.matching(text, m.end() - 1, "(", ")")
        j = close + 1
        while j < len(text) and text[j] in " \t\n":
            j += 1
        if j < len(text) and text[j] == ";":
            continue                        # a prototype
        if j >= len(text) or text[j] != "{":
            return None
        out.append((m.start(), close, bool(re.search(r"\bstatic\b", head))))
    return out


def _head_before(text, i):
    """The text of a function head before its name at offset i: the start of the name's
    line and the lines above it back to a blank line, a directive or the end of the code
    before (`;`, `{`, `}`); None when the name's line is a directive (`#define GEN(size,
    cmd) {size, cmd},`)."""
    k = text.rfind("\n", 0, i) + 1
    head = text[k:i]
    if head.lstrip().startswith("#"):
        return None
    while k > 0:
        p = text.rfind("\n", 0, k - 1) + 1
        prev = text[p:k - 1]
        s = prev.strip()
        if not s or s.startswith("#") or s.endswith((";", "{", "}", ",", "\\")):
            break
        head = prev + "\n" + head
        k = p
    return head


def param_uses(ff, name, at, idx):
    """(parameter name, [(offset, line, kind)]) of the uses, in the definition of `name` at
    offset `at` of ff, of its idx-th parameter that may hand the address on: every mention
    in the body but the tests; (None, why) when the parameter cannot be read."""
    text = ff.text
    line = ff.line_of(at)
    open_paren = text.index("(", at)
    close = ctext.matching(text, open_paren, "(", ")")
    params = split_params(text[open_paren + 1:close])
    if idx >= len(params) or params[idx].strip() == "...":
        return None, f"{name}() at {ff.rel}:{line} has no parameter {idx + 1} of its own"
    pname = param_name(params[idx])
    if pname is None:
        return None, f"parameter {idx + 1} of {name}() at {ff.rel}:{line} has no name"
    body = text.index("{", close)
    end = ctext.matching(text, body)
    out = []
    for off, uline, kind in textual_mentions(ff, pname):
        if not body < off < end:
            continue
        if kind == "ref" and _looked_at(text, off, text[off + len(pname):off + len(pname) + 40]):
            continue                        # `if (fn)`, `e->fn == fn`: tested, not passed on
        out.append((off, uline, kind))
    return pname, out
