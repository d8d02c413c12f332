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
from . import entries as E
from . import static_vars
from .facts import classify_mention, textual_mentions
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


def resolve(g):
    """Settle the graph's pending forwards (Graph._forward), those they lead to included (a
    wrapper of a wrapper): one search of the tree for the callee names of each wave. Each
    entry they add names the calls that passed the address on. Returns the caller nodes."""
    new = []
    while g._pending_forwards:
        pending, g._pending_forwards = g._pending_forwards, []
        g.pre.files_with(sorted({p[2] for p in pending}))
        # the wave's definitions parsed in one spatch run: a run a wrapper paid spatch's
        # start-up a hundred times on a cold 6.1 scan
        defs = {(ff.rel, callee): wrapper_definitions(g, ff.rel, callee) for _n, ff, callee, _i, _l, _s in pending}
        g.load({f for found in defs.values() for f, _s in found})
        for n, ff, callee, idx, line, stack in pending:
            where = f"passed to {callee}() at {ff.rel}:{line}"
            first = len(n.entries)
            g._forwarding = list(stack)
            got = _forward_now(g, n, ff, callee, idx, line, where, defs[(ff.rel, callee)])
            if got is None:
                n.entries.append((E.UNKNOWN, f"address passed to {callee}() (argument {idx + 1}): caller unknown",
                                  ff.rel, line, "registration"))
            else:
                new.extend(got)
            if got is not None or stack:
                said = " ".join(f"({w})" for w in ([where] if got is not None else []) +
                                [w for _c, _i, w in reversed(stack)])
                for i in range(first, len(n.entries)):
                    ctx, fact, f, l, k = n.entries[i]
                    n.entries[i] = (ctx, f"{fact} {said}", f, l, k)
        g._forwarding = []
    return new


def _forward_now(g, n, ff, callee, idx, line, where, defs):
    """The registrations that `defs`, the definitions of `callee`, make of its parameter idx,
    each use followed as a mention of n would be. Returns the caller nodes found, or None
    when the driver defines no callee (the address then stays unknown)."""
    if not defs:
        return None
    if any(c == callee and i == idx for c, i, _w in g._forwarding) or len(g._forwarding) >= MAX_FORWARD_DEPTH:
        n.entries.append((E.UNKNOWN, f"address {where}: passed on through more than {MAX_FORWARD_DEPTH} functions, "
                          "or back to one of them", ff.rel, line, "registration"))
        return []
    g._forwarding.append((callee, idx, where))
    new = []
    try:
        for rel, at in defs:
            df = g.facts.get(rel)
            if df is None or df.failed or callee not in df.defs:
                why = (df.failed if df else None) or "spatch could not parse it"
                n.entries.append((E.UNKNOWN, f"{rel} defines {callee}() but {why}", ff.rel, line, "unparsed"))
                continue
            pname, uses = param_uses(df, callee, at, idx)
            if pname is None:
                n.entries.append((E.UNKNOWN, uses, ff.rel, line, "registration"))
                continue
            for off, uline, kind in uses:
                new.extend(_forwarded_use(g, n, df, callee, pname, off, uline, kind, (ff.rel, line), where))
    finally:
        g._forwarding.pop()
    return new


def _forwarded_use(g, n, df, callee, pname, off, line, kind, passed, where):
    """One use of the parameter `pname` of `callee` (defined in df) that holds n's address."""
    if kind == "call":
        c = df.calls.get((line, off - df.offset(line, 0)))
        if c is None or c.callee != pname or c.func != callee:
            n.entries.append((E.UNKNOWN, f"call of {callee}()'s parameter {pname} that spatch could not "
                              f"parse ({df.rel}:{line})", df.rel, line, "unparsed"))
            return []
        caller = g.node(df.rel, callee)
        e = g.add_call_edge(caller, n, df.rel, c)
        e.via = (f"its parameter {pname}", passed[0], passed[1])
        return [] if caller.expanded else [caller]
    what, detail = classify_mention(df, pname, off, line, kind, df.defs)
    if what == "not-function":
        return []                   # `leaf->cb = cb`: the member of that name, not the parameter
    if what in ("assign", "init", "init-pos", "call-arg"):
        g.forwarded[(n.key, df.rel, line)] = (pname, where)
        return g._registration(n, df, what, detail, line)
    if what == "other":
        g.forwarded[(n.key, df.rel, line)] = (pname, where)
        got = static_vars.store(g, n, df, (off, len(pname)), line)
        if got is not None:
            return got
    n.entries.append((E.UNKNOWN, f"{callee}()'s parameter {pname} used at {df.rel}:{line} (the pointer is "
                      "passed on)", df.rel, line, "pointer"))
    return []


def wrapper_definitions(g, cf, name):
    """[(file, offset)] of every definition of function `name` that a call in cf can mean,
    when the driver defines it: cf's static one, else those in cf's module (one a build
    configuration; a static one in another .c file only if some file #includes it).
    [] when the module defines none, or a kernel header names it (a core function: a
    driver's own of that name would clash with its prototype). The caller parses the files."""
    own = definitions(g.text_facts(cf).text, name)
    if own is None:
        return []
    if any(static for _s, _e, static in own):
        found = [(cf, s) for s, _e, _st in own]
    else:
        mention = [f for f in g.pre.files_with([name]) if f.endswith((".c", ".h"))]
        if g.tree.kind == "kernel" and any(f.startswith(("include/", "arch/")) for f in mention):
            return []
        mod = g._module_of(cf)
        found = []
        for f in mention:
            if g._module_of(f) != mod:
                continue
            try:
                defs = definitions(g.text_facts(f).text, name) if f != cf else own
            except OSError:
                return []
            if defs is None:
                return []           # a head this reader cannot follow: the address stays unknown
            if f != cf and f.endswith(".c") and all(st for _s, _e, st in defs) and not g._included_c(f):
                continue            # another file's static function of the same name
            found += [(f, s) for s, _e, _st in defs]
    return found
