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
# A struct's definition (not a declaration or a use): the tags a file or header defines.
STRUCT_DEF = re.compile(r"\bstruct\s+(\w+)\s*\{")


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
    for op, start, off, end in _member_refs(text, member):
        bstart, base = _base_text(text, start)
        if op == "." and not base:
            kind = "store" if _next_token(text, _skip_index(text, end)) == "=" else "use"  # designated initialiser
        else:
            kind = _use_kind(text, bstart, start - len(base), end)
        out.append((off, base, kind))
    return out


def var_uses(text, name):
    """[(offset, kind)] for every mention of the variable `name` (not a member of that name),
    kinds as uses() gives them."""
    out = []
    for m in re.finditer(r"(?<![\w#])%s\b" % re.escape(name), text):
        k = m.start()
        while k > 0 and text[k - 1] in " \t\n":
            k -= 1
        if k > 0 and (text[k - 1] == "." or text[k - 2:k] == "->"):
            continue
        out.append((m.start(), _use_kind(text, m.start(), m.start(), m.end())))
    return out


def _use_kind(text, bstart, start, end):
    """The kind of the use of an lvalue whose text spans bstart..end (start: where its last
    part begins, for the test of `(x->m)`)."""
    nxt = _next_token(text, _skip_index(text, end))
    before = _prev_token(text, bstart)
    if before in ("&", "|"):
        j = len(text[:bstart].rstrip()) - 1
        if j > 0 and text[j - 1] == before:
            before *= 2                 # `a && x->m`: a test, not the address of x->m
    elif before == "=":
        j = len(text[:bstart].rstrip()) - 1
        if j > 0 and text[j - 1] in "=!":
            before = text[j - 1] + "="  # `NULL == x->m`: a comparison, not a read into a variable
    if nxt == "=":
        return "store"
    if nxt == "(":
        return "call"
    if before == "&":
        return "address"
    if _is_test(text, start, nxt, before):
        return "test"
    return "use"


def _member_refs(text, member):
    """[(operator, its offset, offset of the name, end of the name)] of `->member` and
    `.member` (spaces allowed between). The name is searched for and the operator checked
    behind it: a pattern that starts with the operator made sre try every '.' and '-'."""
    out = []
    for m in re.finditer(r"%s\b" % re.escape(member), text):
        k = m.start()
        while k > 0 and text[k - 1].isspace():
            k -= 1
        if k > 0 and text[k - 1] == ".":
            out.append((".", k - 1, m.start(), m.end()))
        elif k > 1 and text[k - 2:k] == "->":
            out.append(("->", k - 2, m.start(), m.end()))
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
    if nxt in ("==", "!=") or before in ("==", "!="):
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
# The declarators before the name in one declaration (`struct event_handler_list *node, *leaf;`),
# plain ones only: an initialiser's commas (`*a = f(b, c), *leaf`) are not followed. The type
# is a whole word, so that `struct fxm_dev, work` is no `struct fxm_de v, work`.
_EARLIER = r"(?:(?:\*\s*)*[A-Za-z_]\w*\s*(?:\[[^\]\n]*\]\s*)*,\s*)*"
_DECL = r"\bstruct\s+(\w+)\b\s*(?:const\b\s*)?" + _EARLIER + r"(?:\*\s*(?:const\b\s*)?)*(?<=[\s*,])%s\s*[;,)=\[]"


def _open_brace(text, close):
    """Offset of the `{` that the `}` at close ends, or None."""
    depth = 0
    for k in range(close, -1, -1):
        c = text[k]
        if c == "}":
            depth += 1
        elif c == "{":
            depth -= 1
            if depth == 0:
                return k
    return None


def _unique(matches):
    types = {m.group(1) for m in matches}
    return types.pop() if len(types) == 1 else None


def _alias_decl(name):
    """`ALIAS *name` / `ALIAS name`: group 1 is the word before the name."""
    return (r"(?<![\w.>])([A-Za-z_]\w*)\b\s*(?:const\b\s*)?" + _EARLIER +
            r"(?:\*\s*(?:const\b\s*)?)*(?<=[\s*,])%s\s*[;,)=\[]" % re.escape(name))


def _types_in(scope, name, alias, file_scope):
    found = {m.group(1) for m in re.finditer(_DECL % re.escape(name), scope)
             if not file_scope or _file_scope(scope, m.start())}
    # `static struct fb_hwswitch { ... } *fbhw;`: the type is defined where it is declared
    for m in re.finditer(r"\}\s*(?:\*\s*)*%s\s*[;,=\[]" % re.escape(name), scope):
        if file_scope and not _file_scope(scope, m.start() + 1):
            continue
        k = _open_brace(scope, m.start())
        tag = re.search(r"\bstruct\s+(\w+)\s*$", scope[max(0, k - 80):k]) if k is not None else None
        if tag:
            found.add(tag.group(1))
    if alias:
        words = []
        for m in re.finditer(_alias_decl(name), scope):
            word = m.group(1)
            if word in KEYWORDS or word in ("struct", "const", "static", "return", "unsigned", "int", "char",
                                              "void", "long", "short", "bool", "u8", "u16", "u32", "u64"):
                continue
            # `struct device *dev`: a tag, which _DECL reads, not a typedef name
            if re.search(r"\b(?:struct|union|enum)\s*$", scope[max(0, m.start() - 12):m.start()]):
                continue
            if file_scope and not _file_scope(scope, m.start()):
                continue
            words.append(word)
        if words and hasattr(alias, "prefetch"):
            alias.prefetch(words)           # the tree searched once for all of them
        for word in words:
            tag = alias(word)
            if tag:
                found.add(tag)
    return found


def var_type(text, name, at, alias=None):
    """The struct type of variable `name` as declared before offset `at` in the same function
    (kernel style: the function's own text starts after the previous column-0 `}`), or at
    file scope; None when the text does not settle it (a macro, no declaration, or two
    declarations of that name with different types, as in nested scopes). `alias(word)`
    gives the struct tag of a typedef name (`typedef struct _adapter {..} ADAPTER, *PADAPTER;`)."""
    fn_start = text.rfind("\n}", 0, at)
    for scope, file_scope in ((text[fn_start + 1:at], False), (text, True)):
        found = _types_in(scope, name, alias, file_scope)
        if found:
            return found.pop() if len(found) == 1 else None
    return None


def _file_scope(text, i):
    """Is offset i at file scope (no `{` open before it)?"""
    return text.count("{", 0, i) == text.count("}", 0, i)


_TYPEDEF = re.compile(r"\btypedef\s+struct\b\s*(\w+)?\s*(\{)?")
# An untagged struct (`typedef struct { ... } bcmsdh_driver_t;`) has no tag: it goes by
# this prefix and its first typedef name, a name no tag can have.
UNTAGGED = "typedef "


def typedefs(text):
    """{alias: struct tag} for `typedef struct tag {...} A, *PA;` and `typedef struct tag A;`;
    for `typedef struct {...} A, *PA;` the tag is UNTAGGED + "A"."""
    out = {}
    for m in _TYPEDEF.finditer(text):
        if not m.group(1) and not m.group(2):
            continue
        j = m.end()
        if m.group(2):
            j = ctext.matching(text, m.end() - 1) + 1
        end = text.find(";", j)
        if end < 0:
            continue
        aliases = [a.strip().lstrip("*").strip() for a in text[j:end].split(",")]
        aliases = [a for a in aliases if re.fullmatch(r"[A-Za-z_]\w*", a)]
        for a in aliases:
            out[a] = m.group(1) or UNTAGGED + aliases[0]
    return out


def untagged_body(text, alias):
    """The braced body of `typedef struct { ... } alias[, ...];` in text, or None."""
    for m in re.finditer(r"\btypedef\s+struct\s*\{", text):
        start = m.end() - 1
        end = ctext.matching(text, start)
        if re.match(r"\s*\**\s*%s\s*[;,]" % re.escape(alias), text[end + 1:end + 200]):
            return text[start:end + 1]
    return None


def member_type(struct_body, member, alias=None):
    """The struct type of `member` in a struct definition's body text, or None."""
    found = _types_in(struct_body, member, alias, False)
    return found.pop() if len(found) == 1 else None


def struct_body(text, stype):
    """The braced body of `struct stype { ... }` in text, or None."""
    if stype.startswith(UNTAGGED):
        return untagged_body(text, stype[len(UNTAGGED):])
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


def member_names(body):
    """The members of a struct body `{ ... }` in declaration order, or None when the order is
    not plain (a nested struct or union, a preprocessor conditional inside)."""
    inner = body[1:-1]
    if "{" in inner or re.search(r"^\s*#\s*if", inner, re.M):
        return None
    names = []
    for decl in inner.split(";"):
        decl = re.sub(r"^\s*#.*$", "", decl, flags=re.M).strip()
        if not decl:
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*(\[[^\]]*\]\s*)*\)\s*\(", decl)
        if fp:
            names.append(fp.group(1))
            continue
        for part in _split_top(decl):
            m = re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*(:\s*\w+\s*)?$", part.strip())
            if not m:
                return None
            names.append(m.group(1))
    return names


def _split_top(decl):
    """Split `int a, b[2], *c` at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in decl:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out
