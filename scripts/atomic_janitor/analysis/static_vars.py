"""A function's address stored in a file-static variable or array: Broadcom's
dhd_debug_linux.c keeps `static dbg_urgent_noti_sub_t urgent_noti_sub_cb;`, stores the
callback a register function is handed (`urgent_noti_sub_cb = urgent_noti_sub;`) and calls
it from one place (`urgent_noti_sub_cb(ndev, data, len, ...)`), or copies an array element
into a local first (`ring_sub_send = ring_send_sub_cb[ring_id]; ring_sub_send(...)`).

Only the file sees a static variable, so its calls are the file's own: the set is complete
when the file is #included by no other, and every use of the name in it is a store, a test,
a call spatch recorded, or a copy into a local that its function only calls or tests. A
variable that is not static, declared twice, or used any other way (its address taken,
passed on, returned) leaves the address unknown."""

import re

from . import entries as E
from . import members as M
from .facts import KEYWORDS
from .member_calls import local_copy

_STORE = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*(?:\[[^\]\n]*\]\s*)?=\s*&?\s*$")


def stored_in(text, off, name_len):
    """The variable that the statement around the mention at off stores it into: `v = fn;`
    or `v[i] = fn;` (a statement of its own, maybe under `if (...)` or `else`), the mention
    the whole right-hand side; None for anything else."""
    m = _STORE.search(text, max(0, off - 200), off)
    if not m or m.end() != off or not re.match(r"\s*;", text[off + name_len:]):
        return None
    before = text[:m.start()].rstrip()
    if not before.endswith((";", "{", "}", ")")) and not re.search(r"\belse$", before):
        return None
    return m.group(1)


def shadowed(text, off, name, decl):
    """Does the function around offset off declare `name` itself before off (a parameter or a
    local of that name: the store at off is then not into the file's variable)? The function
    starts after the `}` ending the one before it (kernel style); the file-scope declaration
    at offset decl may lie in between."""
    start = text.rfind("\n}", 0, off) + 1
    # `cb_t a, saved;` too: a list or an argument list before it counts (unknown, never missed)
    for m in re.finditer(r"(?<![\w.>])([A-Za-z_]\w*)[\s*,]+(?:\(\s*\*\s*)?(%s)\s*[;=,\[)]" % re.escape(name),
                         text[start:off]):
        if start + m.start(2) != decl and m.group(1) not in KEYWORDS:
            return True
    return False


def declaration(text, name):
    """(offset of the name, None) in the one file-scope `static` declaration of `name`, or
    (None, why)."""
    decls = [m for m in re.finditer(
        r"^[ \t]*(?:static\b[^;{}=()]*?|[A-Za-z_][^;{}=()]*?)(?:\(\s*\*\s*)?(?<![\w.>])(%s)\s*[\[;=)]" % re.escape(name),
        text, re.M) if M._file_scope(text, m.start())]
    if len(decls) != 1:
        return None, (f"{name} is declared {len(decls)} times at file scope" if decls else
                      f"{name} is not a variable of this file")
    if not re.match(r"[ \t]*static\b", decls[0].group(0)):
        return None, f"{name} is not static: other files may read it"
    return decls[0].start(1), None


def calls(ff, name, decl):
    """([Call], None) for every call through the static variable `name` (whose declaration
    names it at offset decl of ff), or (None, why not)."""
    text = ff.text
    found = []
    for off, kind in M.var_uses(text, name):
        if off == decl:
            continue                            # the declaration itself
        line = ff.line_of(off)
        if kind in ("store", "test"):
            continue
        if kind == "call":
            c = ff.calls.get((line, off - ff.offset(line, 0)))
            if c is None or c.callee != name or not c.func or c.func == "something_else":
                return None, f"call through {name} that spatch could not parse ({ff.rel}:{line})"
            found.append(c)
            continue
        if kind == "use":
            local = local_copy(ff, off, name)
            if local is not None:
                found.extend(local)
                continue
        return None, f"{name} read at {ff.rel}:{line} (the pointer is passed on)"
    if not found:
        return None, f"no call through {name} found"
    return found, None


def store(g, n, ff, mention, line):
    """The mention (offset, length) of n's address at ff:line, when it is `saved = fn;` or
    `saved[i] = fn;` into a static variable of ff: an edge from each function that calls
    through it, or one UNKNOWN entry saying why they cannot all be found. None when the
    mention is no such store."""
    var = stored_in(ff.text, *mention)
    if var is None:
        return None
    decl, why = declaration(ff.text, var)
    if decl is not None and (ff.rel.endswith(".h") or g._included_c(ff.rel)):
        why = f"{ff.rel} is #included by other files, each with its own {var}"
    elif decl is not None and shadowed(ff.text, mention[0], var, decl):
        why = f"the function that stores it declares a {var} of its own"
    found = None
    if why is None:
        found, why = calls(ff, var, decl)
    if why is not None:
        n.entries.append((E.UNKNOWN, f"function pointer stored in {var} ({ff.rel}:{line}): {why}", ff.rel, line,
                          "pointer"))
        return []
    fwd = g.forwarded.get((n.key, ff.rel, line))
    via = (f"static {var}", ff.rel, line) + ((f"{fwd[0]} holds {n.name}(), {fwd[1]}",) if fwd else ())
    new = []
    for c in found:
        caller = g.node(ff.rel, c.func)
        e = g.add_call_edge(caller, n, ff.rel, c)
        e.via = via
        if not caller.expanded:
            new.append(caller)
    return new
