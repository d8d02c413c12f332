"""Functions stored in a static table whose struct type has no name: `static struct { void
(*func)(...); int arg; } opcode_table[] = { {atom_op_move, 0}, ... };` (radeon's and amdgpu's
AtomBIOS interpreters), or the same through a typedef of an untagged struct in the file.
Field-based resolution (member_calls.py) keys on a struct tag, which such a type lacks; here
the variable stands in for the type. A static variable is seen by its own file alone, so
when every mention of it there is accounted for (a call through the member, a store, a test,
another member, its size) those calls are all the calls of what it holds. Any other use
(the table or an element passed on, its address taken, a mention inside a macro) is an
escape, and the caller stays unknown."""

import re

from . import members as M
from .facts import _FIELD, MAX_INITIALISER, _code_before, _open_brace, positional_slot

_DECLARATOR = re.compile(r"\}\s*(\w+)\s*(?:\[[^\]]*\]\s*)?(?:__\w+(?:\([^()]*\))?\s*)*=\s*$")
_NAMED_DECLARATOR = re.compile(r"(?:^|[;{}])\s*static\s+(?:const\s+)?(\w+)\s+(?:const\s+)?(\w+)\s*"
                               r"(?:\[[^\]]*\]\s*)?(?:__\w+(?:\([^()]*\))?\s*)*=\s*$")
_ANON_STRUCT = re.compile(r"(?:^|[;{}])\s*static\s+(?:const\s+)?struct\s*$")
_SIZE_OF = re.compile(r"(?:\bARRAY_SIZE\s*\(|\bsizeof\s*\(?)\s*$")
_MEMBER = re.compile(r"\s*\.\s*(\w+)")


class Table:
    """A static table variable holding a function at one member."""
    __slots__ = ("var", "field", "decl")

    def __init__(self, var, field, decl):
        self.var, self.field, self.decl = var, field, decl      # decl: offset of the declarator


def stored_in(text, off):
    """The Table when the function named at offset off is an initialiser's value in a static
    variable of an untagged struct type (positional or designated, alone or in an array),
    else None."""
    designated = _FIELD.search(text[max(0, off - 200):off])
    if designated:
        if designated.group(1) == "->":
            return None
        brace, stop = _open_brace(text, off - 1, max(0, off - 20000))
        if stop != "{":
            return None
        field, index = designated.group(2), None
    else:
        slot = positional_slot(text, off)
        if slot is None or slot[1] is None:
            return None
        (brace, index), field = slot, None
    decl = _declaration(text, brace)
    if decl is None:
        return None
    var, body, at = decl
    names = M.member_names(body)
    if names is None:
        return None
    if field is None:
        if index >= len(names):
            return None
        field = names[index]
    elif field not in names:
        return None
    return Table(var, field, at)


def _declaration(text, brace):
    """(variable, struct body, offset of the variable's name) for the initialiser whose
    element or whole is the `{` at brace, when the variable is static and of an untagged
    struct type declared with it or typedef'd in the file; else None."""
    before = _code_before(text, brace).rstrip()
    element = before.endswith((",", "{")) or re.search(r"\]\s*=$", before) is not None
    if element:
        brace, stop = _open_brace(text, brace - 1, max(0, brace - MAX_INITIALISER))   # an element of an array
        if stop != "{":
            return None
    head = text[max(0, brace - 300):brace]
    base = brace - len(head)
    m = _DECLARATOR.search(head)
    if m:
        close = base + m.start()
        body_open = M._open_brace(text, close)
        if body_open is None or not _ANON_STRUCT.search(text[max(0, body_open - 80):body_open]):
            return None
        var, body, at = m.group(1), text[body_open:close + 1], base + m.start(1)
    else:
        m = _NAMED_DECLARATOR.search(head)
        body = M.untagged_body(text, m.group(1)) if m else None
        if body is None:
            return None
        var, at = m.group(2), base + m.start(2)
    # Braces inside one struct's initialiser are a nested member's (`{ 1, { fn } }`), whose
    # order is not the outer struct's: only an array's elements are braced structs.
    if element != bool(re.match(r"\w+\s*\[", text[at:at + 200])):
        return None
    return var, body, at


def calls(ff, table):
    """([offsets of the calls through table.field], None) when every mention of the table
    in ff is accounted for, else (None, why not)."""
    text = ff.text
    kinds = None
    through = []
    for m in re.finditer(r"(?<![\w.>])%s\b" % re.escape(table.var), text):
        start = m.start()
        if start == table.decl:
            continue
        line = ff.line_of(start)
        if ff.macro_at(line):
            return None, f"{table.var} used in a macro ({ff.rel}:{line})"
        if _SIZE_OF.search(text[max(0, start - 40):start]):
            continue
        member = _MEMBER.match(text, M._skip_index(text, m.end()))
        if not member:
            return None, f"{table.var} used at {ff.rel}:{line} (the table is passed on)"
        if member.group(1) != table.field:
            continue                    # another member: it holds no function of this one
        if kinds is None:
            kinds = {off: kind for off, _base, kind in M.uses(text, table.field)}
        kind = kinds.get(member.start(1))
        if kind == "call":
            through.append(member.start(1))
        elif kind not in ("store", "test"):
            return None, f"{table.var}[].{table.field} read at {ff.rel}:{line} (the pointer is passed on)"
    if not through:
        return None, f"no call through {table.var}[].{table.field} found"
    return through, None
