"""Calls through struct members, as in multi-layer type analysis (MLTA, Lu & Hu, CCS 2019):
a function stored into member M of struct type T is called where code calls `->M(...)` or
`->M[i](...)` on a T. This module reads the text of one file: every use of a member, what
kind of use it is, and the struct type of its base where the text settles it.

What counts is decided for soundness, never for reach: a use that is neither a store, nor a
call that spatch recorded, nor a plain test of the pointer is an escape (the pointer is read
and may be called from anywhere), and the graph then treats the stored function's callers
as unknown. A base whose type the text does not settle is kept (T or not), never dropped."""

import re

from .. import ctext
from .facts import KEYWORDS, _enclosing_call, _prev_token

# Calls that only test their argument: a member passed to them is not passed on.
TESTING_CALLS = {"likely", "unlikely", "WARN_ON", "WARN_ON_ONCE", "BUG_ON", "WARN", "WARN_ONCE", "IS_ERR_OR_NULL"}
_IDENT = re.compile(r"[A-Za-z_]\w*$")


def _skip_index(text, j):
    """Offset after `[...]` groups starting at j (spaces allowed)."""
    while True:
        k = j
        while k < len(text) and text[k] in " \t\n":
            k += 1
        if k < len(text) and text[k] == "[":
            j = ctext.matching(text, k, "[", "]") + 1
            continue
        return k


def _next_token(text, j):
    m = re.compile(r"\s*(==|!=|&&|\|\||[=?:;,()\]}]|[A-Za-z_]\w*|.)").match(text, j)
    return m.group(1) if m else ""


def uses(text, member):
    """[(offset of the member name, base text, kind)] for every `.member`/`->member` in the
    (comment-blanked) text. kind: "store" (assigned or initialised), "call" (called, maybe
    through an index), "test" (only compared or tested), "address" (&x->m), "use" (anything
    else: read into a variable, passed, returned)."""
    out = []
    for m in re.finditer(r"(->|\.)\s*(%s)\b" % re.escape(member), text):
        off = m.start(2)
        after = _skip_index(text, m.end(2))
        nxt = _next_token(text, after)
        bstart, base = _base_text(text, m.start())
        before = _prev_token(text, bstart)
        if m.group(1) == "." and not base:
            kind = "store" if nxt == "=" else "use"          # designated initialiser
        elif nxt == "=":
            kind = "store"
        elif nxt == "(":
            kind = "call"
        elif before == "&":
            kind = "address"
        elif _is_test(text, m.start() - len(base), nxt, before):
            kind = "test"
        else:
            kind = "use"
        out.append((off, base, kind))
    return out


def _base_text(text, i):
    """(start, text) of the access path before the member operator at offset i: `a`,
    `a->b`, `a.b[2]`; text '' when there is none or it is not a plain path (a cast, a call)."""
    j = i
    parts_start = i
    while True:
        k = j
        while k > 0 and text[k - 1] in " \t\n":
            k -= 1
        if k > 0 and text[k - 1] == "]":
            depth = 0
            while k > 0:
                k -= 1
                if text[k] == "]":
                    depth += 1
                elif text[k] == "[":
                    depth -= 1
                    if depth == 0:
                        break
            while k > 0 and text[k - 1] in " \t\n":
                k -= 1
        m = _IDENT.search(text, max(0, k - 80), k)
        if not m:
            if k > 0 and text[k - 1] == ")":
                return k, ""                                # (cast)x or f()->m: not a path
            return (parts_start, text[parts_start:i].strip()) if parts_start < i else (i, "")
        parts_start = m.start()
        p = m.start()
        while p > 0 and text[p - 1] in " \t\n":
            p -= 1
        if text[p - 2:p] == "->":
            j = p - 2
        elif p > 0 and text[p - 1] == "." and not (p > 1 and text[p - 2].isdigit()):
            j = p - 1
        else:
            return parts_start, text[parts_start:i].strip()


def _is_test(text, start, nxt, before):
    """`if (x->m)`, `!x->m`, `x->m == NULL`, `x->m && ...`, `WARN_ON(!x->m)`: the pointer is
    looked at, never passed on."""
    if nxt in ("==", "!="):
        return True
    if before in ("!", "&&", "||", "?") or nxt in ("&&", "||", "?"):
        return True
    if before == "(" and nxt == ")":
        close = text.find(")", start)
        if _next_token(text, close + 1) == "(":
            return False                                    # (x->m)(...): a call spatch did not see
        callee, _idx = _enclosing_call(text, start)
        if callee is None:
            return True                                     # if (x->m) / while (x->m)
        return callee in TESTING_CALLS
    return False


# `struct T *name` / `struct T name[..]` / `struct T *const name`: the character before the
# name must end the type (a space or a star), so that `container_of(w, struct fxm_dev, work)`
# never reads as a declaration of `dev` of type `fxm_`.
_DECL = r"\bstruct\s+(\w+)\s*(?:const\b\s*)?(?:\*\s*(?:const\b\s*)?)*(?<=[\s*])%s\s*[;,)=\[]"


def _unique(matches):
    types = {m.group(1) for m in matches}
    return types.pop() if len(types) == 1 else None


def var_type(text, name, at):
    """The struct type of variable `name` as declared before offset `at` in the same function
    (kernel style: the function's own text starts after the previous column-0 `}`), or at
    file scope; None when the text does not settle it (a typedef, a macro, no declaration,
    or two declarations of that name with different types, as in nested scopes)."""
    fn_start = text.rfind("\n}", 0, at)
    local = list(re.finditer(_DECL % re.escape(name), text[fn_start + 1:at]))
    if local:
        return _unique(local)
    glob = list(re.finditer(r"^(?:static\s+)?(?:const\s+)?struct\s+(\w+)\s+%s\b" % re.escape(name), text, re.M))
    return _unique(glob) if glob else None


def member_type(struct_body, member):
    """The struct type of `member` in a struct definition's body text, or None."""
    return _unique(re.finditer(_DECL % re.escape(member), struct_body))


def struct_body(text, stype):
    """The braced body of `struct stype { ... }` in text, or None."""
    m = re.search(r"\bstruct\s+%s\s*\{" % re.escape(stype), text)
    if not m:
        return None
    start = m.end() - 1
    return text[start:ctext.matching(text, start) + 1]


def path_parts(base):
    """`a->b.c[2]` -> ["a", "b", "c"]; None when the path holds anything else."""
    base = re.sub(r"\[[^\]]*\]", "", base)
    parts = [p.strip() for p in re.split(r"->|\.", base)]
    if not parts or not all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in parts) or parts[0] in KEYWORDS:
        return None
    return parts
