"""Function-head macros: a driver that writes a function's head as a macro of its own, one
definition per kernel version (Broadcom's bcmdhd):

    #if (LINUX_VERSION_CODE < KERNEL_VERSION(3, 0, 0))
    #define WL_EXT_EVENT_HANDLER() static int wl_ext_event_handler(void *data)
    #else
    #define WL_EXT_EVENT_HANDLER() static void wl_ext_event_handler(struct work_struct *data)
    #endif

    WL_EXT_EVENT_HANDLER()
    {
        ...

spatch parses the use as the definition of a function named WL_EXT_EVENT_HANDLER (an old-style
head with an implicit int), and a macro file cannot change that: the parse succeeds. The
function that the registrations name (`INIT_WORK(&w, wl_ext_event_handler)`) then has no body,
and the calls in the body have no caller. The text settles the name: every `#define` of the
macro in the file is one line that ends in the head of the same function, so the facts of the
function that spatch named after the macro are the facts of that function."""

import re

from .. import ctext

# [storage class and type words] name (parameters): the whole body of the macro, nothing after
# the `)`. A `;` or `{` anywhere makes it something else (a prototype, a whole function).
_HEAD = re.compile(r"(?P<before>(?:[A-Za-z_]\w*\s*\**\s*)+?)\b(?P<name>[A-Za-z_]\w*)\s*"
                   r"\((?P<params>[^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*)\)")


def head_of(body):
    """(function name, static, parameters) when a macro body is a function head, else None."""
    m = _HEAD.fullmatch(body.strip())
    if not m or m.group("name") in ("if", "while", "for", "switch", "return", "sizeof"):
        return None
    words = m.group("before").replace("*", " ").split()
    if not words or words[-1] in ("return", "else", "do", "goto", "case"):
        return None                 # `return f(x)`: a call, not a head
    return m.group("name"), "static" in words, " ".join(m.group("params").split())


def macros(lines):
    """{macro: (function, static, params, [define lines])} for the file's argument-less macros
    whose every definition in the file is one line holding the head of one and the same
    function. static: every definition says static; params: "" unless all agree."""
    seen, bad = {}, set()
    for first, last, (name, params, body) in ctext.defines(lines):
        head = head_of(body) if params is not None and not params.strip() and first == last else None
        if head is None:
            bad.add(name)
            continue
        fn, static, plist = head
        prev = seen.get(name)
        if prev is None:
            seen[name] = (fn, static, plist, [first])
        elif prev[0] != fn:
            bad.add(name)
        else:
            seen[name] = (fn, prev[1] and static, plist if prev[2] == plist else "", prev[3] + [first])
    return {k: v for k, v in seen.items() if k not in bad}


def renames(lines, defined):
    """{macro: (function, static, params, [define lines])} for the function-head macros that
    spatch took for function names in this file (`defined`: the names its facts define),
    unless the file also defines the function under its own name."""
    if not defined:
        return {}
    found = macros(lines) if any("define" in l for l in lines) else {}
    return {m: v for m, v in found.items() if m in defined and v[0] not in defined}
