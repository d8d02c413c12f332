"""What a driver's function-like macro does with a function passed to it: vendor drivers wrap
registrations in macros of their own (`#define INIT_TIMER(t, func, ms, d) do {
init_timer(t); t->function = func; ... add_timer(t); } while (0)`). The argument counts as
the registration the macro body makes of it when every use of the parameter in the body
says the same: passed to a call the tables know (CALL_ARGS: INIT_WORK(), tasklet_init(), ...)
or stored into a timer's ->function. Any other use, a parameter passed to another macro,
or two definitions that disagree, leave it unknown."""

import re

from .. import ctext
from . import entries as E
from .facts import _enclosing_call


def _uses(body, param):
    """The context entry each use of `param` in the macro body gives, None for an unknown use."""
    out = []
    for m in re.finditer(r"(?<![\w#])%s(?!\w)" % re.escape(param), body):
        i = m.start()
        before = body[:i].rstrip()
        while before.endswith("("):            # `(func)`
            before = before[:-1].rstrip()
        store = re.search(r"([\w\.\->\(\)\s\*]*?)(->|\.)\s*function\s*=\s*\(*\s*$", before)
        if store and _is_timer(body, store.group(1)):
            out.append((E.ATOMIC, f"timer callback (->function = {param})"))
            continue
        callee, idx = _enclosing_call(body, i)
        out.append(E.CALL_ARGS.get((callee, idx)) if callee else None)
    return out


_TIMER_API = r"\b(init_timer\w*|add_timer\w*|mod_timer\w*|setup_timer\w*|del_timer\w*)\s*\(\s*[(&\s]*%s\b"


def _is_timer(body, lhs):
    """Is `lhs` (the text before `->function =`) a timer: named so, or handed to the timer
    API in the same body (`init_timer(t); (t)->function = func;`)?"""
    if "timer" in lhs:
        return True
    names = re.findall(r"\w+", lhs)
    return bool(names) and re.search(_TIMER_API % re.escape(names[-1]), body) is not None


def _param(params, idx):
    """The name of parameter idx of a function-like macro, None past its end or at `...`."""
    if params is None:
        return None
    names = [p.strip() for p in params.split(",")]
    return None if idx >= len(names) or names[idx].endswith("...") else names[idx]


def registration(definitions, idx):
    """(context, fact) of a function passed as argument idx to a macro with these
    definitions [(name, params, body)], or None."""
    got = set()
    for name, params, body in definitions:
        param = _param(params, idx)
        if param is None:
            return None
        uses = _uses(ctext.blank(body), param)
        if not uses or any(u is None for u in uses):
            return None
        got |= {u[0] for u in uses}
        fact = f"{uses[0][1]} in macro {name}()"
    return (got.pop(), fact) if len(got) == 1 else None


_ELEMENT = re.compile(r"\{\s*(\.\s*\w+\s*=\s*[^,{}]*?\s*(?:,\s*\.\s*\w+\s*=\s*[^,{}]*?\s*)*),?\s*\}\s*,?")


def element_member(definitions, idx):
    """The member that argument idx is the value of, when every definition of the macro is one
    designated element `{.cmd_hdl = cmd, .callback = callback_func},` (Realtek's
    GEN_MLME_EXT_HANDLER()) that uses the parameter once, as the whole value of one member;
    else None. Where the macro is used as an element of an array of structs, the argument is
    that member's value (facts.array_element_type)."""
    got = set()
    for _name, params, body in definitions:
        param = _param(params, idx)
        m = _ELEMENT.fullmatch(ctext.blank(body).strip()) if param else None
        if not m:
            return None
        members = [re.fullmatch(r"\.\s*(\w+)\s*=\s*\(?\s*&?\s*%s\s*\)?" % re.escape(param), item.strip())
                   for item in m.group(1).split(",")]
        whole = [x.group(1) for x in members if x]
        mentioned = len(re.findall(r"(?<![\w#])%s(?!\w)" % re.escape(param), m.group(1)))
        if len(whole) != 1 or mentioned != 1:
            return None
        got.add(whole[0])
    return got.pop() if len(got) == 1 else None
