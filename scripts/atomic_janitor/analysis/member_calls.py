"""The callers of a function stored into a struct member: the calls through that member
(field-based indirect-call resolution, MLTA). Run once a round, after the graph expanded its
frontier; adds an edge from each function that calls through the member, or one UNKNOWN
entry naming why the calls cannot all be found.

The set of calls counts as complete only when
- the struct type T of the store is settled by the text (an initialiser's type, the declared
  type of the assigned variable, the member types along `a->b->m`);
- every file that can see T (defines it, or includes its header, directly or through other
  headers) was parsed, and in each every use of the member on a T (or on a base whose
  type the text does not settle) is a store, a plain test, or a call spatch recorded with
  its regions; a member read into a variable, passed on, used in a macro or named by a
  macro's argument is an escape;
- T is the driver's own: defined outside include/ and arch/ (a core type is called by the
  core, through paths this textual search does not follow), or the member is one that its
  kernel-doc says no core code calls (entries.DRIVER_ONLY_MEMBERS);
- there is at least one such call, and not more than the limits below.
A module directory sees only itself: there T must be defined in the directory."""

import os
import re

from .. import ctext
from . import entries as E
from .facts import KEYWORDS, _enclosing_call
from . import members as M
from .roots import driver_root

MAX_MEMBER_FILES = 16
MAX_MEMBER_CALLS = 24


def resolve(g):
    """Settle the graph's pending member stores; returns the new caller nodes to expand."""
    pending, g._pending_members = g._pending_members, []
    if not pending:
        return []
    g.pre.files_with(sorted({p[2] for p in pending}))

    def plan(n, stype, field, cf, line, lhs):
        if stype is None and lhs is not None:
            stype = _lhs_type(g, g.facts[cf], lhs, field, line)
            if stype is not None:
                # a store into a member whose context the tables know, as an initialiser of
                # that member would be (`ndev->hard_start_xmit = fn` on a net_device)
                ent = g.table_context(n, g.facts[cf], stype, field, line)
                if ent is not None:
                    return (n, stype, field, cf, line, lhs, None, ent + ("registration",))
                doc = g.doc_context(stype, field, cf)
                if doc:
                    return (n, stype, field, cf, line, lhs, None, doc + ("documented",))
        key = (stype, field, driver_root(cf, g.tree.kind) if stype is None else None)
        if key not in g._member_files:
            g._member_files[key] = _candidate_files(g, stype, field, cf)
        return (n, stype, field, cf, line, lhs) + g._member_files[key]

    # The lookups of all the round's stores, a link of their chains at a time (Prefilter.settle).
    plans = g.pre.settle({i: (lambda p=p: plan(*p)) for i, p in enumerate(pending)})
    plans = [plans[i] for i in range(len(pending))]
    g.load({f for p in plans if p[6] for f in p[6]})
    found = g.pre.settle({i: (lambda p=p: _member_calls(g, p[1], p[2], p[6]))
                          for i, p in enumerate(plans) if p[7] is None})
    new = []
    for i, (n, stype, field, cf, line, lhs, files, why) in enumerate(plans):
        # a store a wrapper made of its parameter (graph._forward): `leaf->cb = cb`
        fwd = g.forwarded.get((n.key, cf, line))
        shown = _store(lhs, fwd[0] if fwd else n.name) if lhs is not None else None
        note = (f"{fwd[0]} holds {n.name}(), {fwd[1]}",) if fwd else ()
        if isinstance(why, tuple):         # plan() found the member's context in the tables
            n.entries.append((why[0], f"{why[1]} (stored by `{shown}`{'; ' + note[0] if note else ''})", cf, line,
                              why[2]))
            continue
        calls = None
        if why is None:
            calls, why = found[i]
        if why is not None:
            what = (f"function pointer stored at run time ({shown})" if lhs is not None else
                    f"callback {type_name(stype) if stype else 'initialiser'} .{field} (context of this "
                    "callback not known)")
            n.entries.append((E.UNKNOWN, f"{what}: {why}" + (f" ({note[0]})" if note else ""), cf, line,
                              "registration"))
            continue
        for rel, c in calls:
            if _other_module(g, stype, rel, cf):
                continue
            if isinstance(c, _TextCall):
                caller = c.caller
                e = g.add_textual_edge(caller, n, rel, c.line)
            else:
                caller = g.node(rel, c.func)
                e = g.add_call_edge(caller, n, rel, c)
            doc = E.DRIVER_ONLY_MEMBERS.get((stype, field))
            e.via = ("->" + field, cf, line) + note + ((f"no core code calls it: {doc[0]}",) if doc else ())
            if not caller.expanded:
                new.append(caller)
    return new


def type_name(stype):
    """`struct tag`, or the typedef an untagged struct goes by (members.UNTAGGED)."""
    return stype if stype.startswith(M.UNTAGGED) else "struct " + stype


def _other_module(g, stype, rel, store):
    """In a module directory that holds several modules (graph._module_of), each defining a
    struct of this name: is the call through the member in rel, in another module than the
    store, a call through the other module's type, which never reaches the stored function?"""
    if g.tree.kind == "kernel" or not stype:
        return False
    mod, own = g._module_of(rel), g._module_of(store)
    if mod == own:
        return False
    homes = {g._module_of(d) for d in struct_defs(g, stype)}
    return mod in homes and own in homes


class _TextCall:
    """A call through the member in a function spatch could not parse (graph.textual_caller)."""
    __slots__ = ("line", "caller")

    def __init__(self, line, caller):
        self.line, self.caller = line, caller


def _cleared_or_sized(g, rel, text, off, field):
    """Is the member use at off the whole operand of sizeof, or the destination of a memset()
    (`memset(wl->evt_handler, 0, sizeof(wl->evt_handler))`) or of a macro that is one
    (`bzero(cfg->evt_handler, sizeof(cfg->evt_handler))`, Broadcom)? None reads a pointer out."""
    end = off + len(field)
    while end < len(text) and text[end] in " \t\n":
        end += 1
    if end >= len(text) or text[end] not in ",)":
        return False                    # more follows (`->m[i]`, `->m + 1`): not the operand alone
    head = text[max(0, off - 200):off]
    if re.search(r"\bsizeof\s*\(\s*[\w\s\.\->\[\]]*$", head) and text[end] == ")":
        return True
    callee, idx = _enclosing_call(text, off)
    if idx != 0 or text[end] != ",":
        return False
    if callee == "memset":
        return _ZERO.match(text, end + 1) is not None
    return callee is not None and _zeroing_macro(g, callee, rel)


_ZERO = re.compile(r"\s*(0|'\\0')\s*,")


def _zeroing_macro(g, name, rel):
    """Is every definition of macro `name` that this tree has (headers, or the file rel
    that calls it) `memset((b), 0, (len))` of its first parameter? At least one must be."""
    found = False
    for params, body in _function_macro_defs(g, name, [rel]):
        z = re.fullmatch(r"\(?\s*memset\s*\(\s*\(?\s*(\w+)\s*\)?\s*,(.*)\)\s*\)?\s*;?", body.strip(), re.S)
        if not z or z.group(1) != params[0] or _ZERO.match(z.group(2)) is None:
            return False
        found = True
    return found


def _function_macro_defs(g, name, files=()):
    """(parameters, body) of each `#define name(...)` in the headers that define it
    (Prefilter.function_macro_headers) and in `files`, continuation lines included."""
    head = re.compile(r"^[ \t]*#[ \t]*define[ \t]+%s\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)" % re.escape(name), re.M)
    for f in sorted(g.pre.function_macro_headers().get(name, ())) + list(files):
        raw = _raw(g, f)
        if "define" not in raw:
            continue
        for m in head.finditer(raw):
            yield [p.strip() for p in m.group(1).split(",")], m.group(2)


def _store(lhs, name):
    """`dev->xmit = fn`, `dev->xmit = &fn`: the store as the source writes it."""
    return f"{lhs}{'' if lhs.endswith('&') else ' '}{name}"


def _text(g, rel):
    return g.text_facts(rel).text


def struct_defs(g, stype):
    """Files defining `struct stype {` (or the untagged `typedef struct {...} alias;` that
    stype names, members.UNTAGGED), memoised per graph. The raw text of the files the tree's
    index of struct lines (the files naming the alias) names is searched, headers under
    include/ and arch/ first: one definition there makes it a core type, and the search stops."""
    if stype not in g._struct_defs:
        untagged = stype.startswith(M.UNTAGGED)
        alias = stype[len(M.UNTAGGED):]
        candidates = g.pre.files_with([alias]) if untagged else g.pre.struct_definers(stype)
        files = sorted((f for f in candidates if f.endswith((".c", ".h"))),
                       key=lambda f: (not f.startswith(("include/", "arch/")), f))
        found = []
        for rel in files:
            if found and found[0].startswith(("include/", "arch/")) and not rel.startswith(("include/", "arch/")):
                break
            if (_typedefs_in(g, rel).get(alias) == stype) if untagged else (stype in _structs_defined(g, rel)):
                found.append(rel)
        g._struct_defs[stype] = sorted(found)
    return g._struct_defs[stype]


class _Typedefs:
    """alias(word) for members.var_type: the struct tag of a typedef name, with the names
    of one declaration scan searched for in one pass over the tree."""

    def __init__(self, g):
        self.g = g

    def __call__(self, word):
        return typedef_tag(self.g, word)

    def prefetch(self, words):
        self.g.pre.files_with(sorted({w for w in words if w not in self.g._typedefs}))


def typedef_tag(g, word):
    """The struct tag a typedef name stands for, searched in the files naming it (headers
    first), memoised per graph; None when it is no struct typedef or has two meanings."""
    if word not in g._typedefs:
        tags = set()
        files = sorted((f for f in g.pre.files_with([word]) if f.endswith((".c", ".h"))),
                       key=lambda f: (not f.endswith(".h"), f))
        for rel in files[:200]:
            tag = _typedefs_in(g, rel).get(word)
            if tag:
                tags.add(tag)
        g._typedefs[word] = tags.pop() if len(tags) == 1 else None
    return g._typedefs[word]


def nested_type(g, path):
    """The struct type of a nested initialiser, "outer>member>...", or None."""
    parts = path.split(">")
    t = parts[0]
    alias = _Typedefs(g)
    for member in parts[1:]:
        types = {M.member_type(b, member, alias) for b in
                 (M.struct_body(_text(g, d), t) for d in struct_defs(g, t)) if b}
        t = types.pop() if len(types) == 1 else None
        if t is None:
            return None
    return t


def member_at(g, stype, index):
    """The name of the index-th member of struct stype, when one definition in the tree
    settles it."""
    names = set()
    for d in struct_defs(g, stype):
        body = M.struct_body(_text(g, d), stype)
        order = M.member_names(body) if body else None
        names.add(order[index] if order and index < len(order) else None)
    return names.pop() if len(names) == 1 else None


def _type_of_path(g, text, parts, at):
    """The struct type at the end of the access path `parts` (variable, then members)."""
    alias = _Typedefs(g)
    t = M.var_type(text, parts[0], at, alias)
    for member in parts[1:]:
        if t is None:
            return None
        defs = struct_defs(g, t)
        bodies = [M.struct_body(_text(g, d), t) for d in defs]
        types = {M.member_type(b, member, alias) for b in bodies if b}
        t = types.pop() if len(types) == 1 else None
    return t


def _path_type_at(g, rel, text, parts, at):
    """_type_of_path for a member use, memoised per graph: the same uses of a common member
    name are looked at again for every store of a function into it."""
    key = (rel, at, tuple(parts))
    if key not in g._path_types:
        g._path_types[key] = _type_of_path(g, text, parts, at)
    return g._path_types[key]


def _lhs_type(g, ff, lhs, field, line):
    """The struct type of `x->y->field =` at `line`, or None."""
    base = re.sub(r"\s*=\s*&?\s*$", "", lhs)
    base = re.sub(r"(->|\.)\s*%s\s*(\[[^\]]*\]\s*)*$" % re.escape(field), "", base)
    parts = M.path_parts(base.strip())
    if not parts:
        return None
    return _type_of_path(g, ff.text, parts, ff.offset(min(line + 1, len(ff.lines)), 0))


def _candidate_files(g, stype, field, store_file):
    """(files that may call through the member, None) or (None, why not). Narrowed by the
    word index first (a member name such as `irq` is in thousands of files), read after."""
    kind = g.tree.kind
    mention = [f for f in g.pre.files_with([field]) if f.endswith((".c", ".h"))]
    if stype is None:
        if kind == "module-dir":
            return None, f"the struct type of ->{field} is not settled by the text"
        root = driver_root(store_file, kind)
        outside = [f for f in mention if not f.startswith(root + "/")]
        if outside or not root:
            return None, (f"the struct type of ->{field} is not settled by the text, and code outside "
                          f"{root or 'the driver'} uses that name ({(outside or mention)[0]})")
        pool = mention
    elif (stype, field) in E.DRIVER_ONLY_MEMBERS:
        # No core code calls it (its kernel-doc says so): the calls are the driver's own,
        # anywhere in its directory (the one right under the subsystem's, for DRM).
        root = driver_root(store_file, kind)
        sub = E.DRIVER_ONLY_MEMBERS[(stype, field)][1]
        if kind == "kernel" and store_file.startswith(sub + "/") and store_file.count("/") > sub.count("/") + 1:
            root = "/".join(store_file.split("/")[:sub.count("/") + 2])
        pool = [f for f in mention if not root or f.startswith(root + "/")]
    else:
        defs = struct_defs(g, stype)
        if not defs:
            return None, f"{type_name(stype)} is not defined in the tree"
        if kind == "kernel" and any(d.startswith(("include/", "arch/")) for d in defs):
            return None, f"{type_name(stype)} is a core type: its calls are the subsystem's"
        if stype not in g._includers:
            g._includers[stype] = _includers(g, defs)
        seeing, why = g._includers[stype]
        if why:
            return None, f"{type_name(stype)}: {why}"
        pool = [f for f in mention if f in seeing]
    if len(pool) > MAX_MEMBER_FILES * 4:
        return None, f"->{field} is named in {len(pool)} files: too many to follow"
    why = _macro_member_arg(g, pool, field)
    if why:
        return None, why
    files = []
    for f in pool:
        text = _text(g, f)
        if not re.search(r"(->|\.)\s*%s\b" % re.escape(field), text):
            continue
        files.append(f)
    if len(files) > MAX_MEMBER_FILES:
        return None, f"->{field} is used in {len(files)} files: too many to follow"
    return sorted(files), None


_BARE_ARG = r"[(,]\s*%s\s*[,)]"


def _macro_member_arg(g, files, field):
    """Why the calls through ->field cannot all be found in files, or None: a function-like
    macro that calls or reads a member named by its parameter (`v4l2_subdev_call(sd, video,
    s_stream, 1)` calls `->s_stream` with no `->s_stream` in the text) given `field`. The
    callees' definitions are searched for at once."""
    bare = re.compile(_BARE_ARG % re.escape(field))
    found = []
    for rel in files:
        if not bare.search(_raw(g, rel)):
            continue
        ff = g.text_facts(rel)
        text = ff.text
        for m in bare.finditer(text):
            at = text.index(field, m.start())
            callee, idx = _enclosing_call(text, at)
            if callee:
                found.append((callee, idx, rel, ff.line_of(at)))
    users = {}
    for c, _i, r, _l in found:
        if r.endswith(".c"):
            users.setdefault(c, set()).add(r)
    uses = _member_params(g, sorted({(c, i) for c, i, _r, _l in found}), {c: sorted(rs) for c, rs in users.items()})
    for callee, idx, rel, line in found:
        if uses[(callee, idx)]:
            return f"->{field} named by macro {callee}() ({rel}:{line})"
    return None


MAX_MACRO_LEVELS = 8


def _member_params(g, pairs, users=None):
    """{(name, idx): does some `#define name(...)` in the tree use its idx-th parameter as a
    member name, itself or through the macros it passes that parameter to?} users: name ->
    the .c files that call it (a .c file may define the macro itself). Searched breadth
    first in the headers that #define each name (Prefilter.function_macro_headers); a chain longer than
    MAX_MACRO_LEVELS counts as using it. Memoised per graph. (A pasted member name,
    `->p##_cb`, is no argument's text: not seen.)"""
    memo = g._member_params
    users = users or {}
    start = {(n, i): (n, i, tuple(users.get(n, ()))) for n, i in pairs}
    inner = {}                               # key -> the keys it passes the parameter to
    level = {k for k in start.values() if k not in memo}
    seen = set(level)
    for _ in range(MAX_MACRO_LEVELS):
        if not level:
            break
        nxt = set()
        for key in sorted(level):
            hit, passes = _macro_uses_param(g, *key)
            if hit:
                memo[key] = True
                continue
            inner[key] = [(n, i, ()) for n, i in passes]
            nxt |= {k for k in inner[key] if k not in memo and k not in seen}
        seen |= nxt
        level = nxt
    for key in level:                        # past the last level: assume the worst
        memo[key] = True
    changed = True
    while changed:                           # a key uses it if anything it passes to does
        changed = False
        for key, passes in inner.items():
            if key not in memo and any(memo.get(k) for k in passes):
                memo[key] = True
                changed = True
    for key in inner:
        memo.setdefault(key, False)
    return {p: memo[k] for p, k in start.items()}


def _macro_uses_param(g, name, idx, users=()):
    """(True, ()) when a definition of macro `name` uses its idx-th parameter as a member
    name, else (False, the (macro, idx) pairs it passes that parameter to)."""
    passes = set()
    # A macro is defined in a header or in the file that uses it: names such as dev_dbg
    # are in thousands of .c files, which need not be read.
    for params, body in _function_macro_defs(g, name, users):
        if idx < len(params):
            p = params[idx]
        elif params and params[-1].endswith("..."):
            p = params[-1]
        else:
            continue
        variadic = p.endswith("...")
        if variadic:
            p = p[:-3].strip() or "__VA_ARGS__"
        # A call or a read of the member; not `((type *)0)->member` (container_of's
        # type check), a designated initialiser `.member = ...` or a pasted name.
        if re.search(r"(?<!0\))(?<!0\)\s)(->|\.)\s*%s\b(?!\s*##)(?!\s*=[^=])" % re.escape(p), body):
            return True, ()
        for a in re.finditer(r"[(,]\s*(?:##\s*)?%s\s*[,)]" % re.escape(p), body):
            n, at = _enclosing_call(body, body.index(p, a.start()))
            if n and n != name:
                # a variadic argument may land on any later parameter of the inner macro
                passes.update((n, i) for i in range(at, at + (8 if variadic else 1)))
    return False, tuple(sorted(passes))


MAX_INCLUDERS = 400


def _includers(g, defs):
    """(every file that can see a struct defined in `defs`, None): the files themselves and
    those that #include one of them, directly or through other headers (a translation unit
    sees a struct only through its includes). A driver's own header (outside include/ and
    arch/) is included from its driver directory by name, or from elsewhere by a relative
    path that leads to it; (None, why) past MAX_INCLUDERS files."""
    kind = g.tree.kind
    seen = set(defs)
    todo = [d for d in defs if d.endswith(".h")]
    while todo:
        by_name = {}
        for h in todo:
            by_name.setdefault(os.path.basename(h), []).append(h)
        todo = []
        for f in g.pre.files_including(sorted(by_name)):
            if f in seen or not f.endswith((".c", ".h")):
                continue
            if any(_reaches(f, path, h, kind) for path, name in _includes(g, f) for h in by_name.get(name, ())):
                seen.add(f)
                if f.endswith(".h"):
                    todo.append(f)
            if len(seen) > MAX_INCLUDERS:
                return None, f"seen by more than {MAX_INCLUDERS} files through their includes: too many to follow"
    return seen, None


def _reaches(includer, path, header, kind):
    """Can `#include "<path><name>"` in `includer` be `header`? Public headers by their path
    under include/ or arch/*/include/; a driver's own header from its driver directory (the
    driver's -I flags), or by the relative path written."""
    if header.startswith(("include/", "arch/")):
        return header.endswith("/" + path + os.path.basename(header)) or header == path + os.path.basename(header)
    if os.path.normpath(os.path.join(os.path.dirname(includer), path, os.path.basename(header))) == header:
        return True
    root = driver_root(header, kind)
    return root == "" or includer.startswith(root + "/")


# The directive is found first and its line checked after: a pattern anchored at every line
# start (`^\s*#`) made sre try each offset of the file, and thousands of files are read here.
_INCLUDE = re.compile(r'#\s*include\s*[<"]([^>"]*/)?([^>"/]+)[>"]')


def _includes(g, rel):
    """[(path prefix, file name)] of rel's #include lines, read once per graph."""
    if rel not in g._include_lines:
        raw = _raw(g, rel)
        g._include_lines[rel] = [(m.group(1) or "", m.group(2)) for m in _INCLUDE.finditer(raw)
                                 if not raw[raw.rfind("\n", 0, m.start()) + 1:m.start()].strip()]
    return g._include_lines[rel]


def _structs_defined(g, rel):
    """The struct tags that rel defines (`struct tag {`), read once per graph: the same
    large headers are asked about many struct types."""
    got = g._structs_in.get(rel)
    if got is None:
        got = g._structs_in[rel] = frozenset(M.STRUCT_DEF.findall(_raw(g, rel)))
    return got


def _typedefs_in(g, rel):
    """{alias: struct tag} of rel's struct typedefs, read once per graph."""
    got = g._typedefs_in.get(rel)
    if got is None:
        raw = _raw(g, rel)
        got = g._typedefs_in[rel] = M.typedefs(ctext.blank(raw)) if "typedef" in raw else {}
    return got


def _raw(g, rel):
    try:
        with open(os.path.join(g.root, rel), encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _member_calls(g, stype, field, files):
    """([(file, Call)], None) for every call through the member, or (None, why not)."""
    calls = []
    for rel in files:
        ff = g.facts.get(rel)
        if ff is None:
            return None, f"{rel} uses ->{field} but was not analysed"
        if ff.failed:
            return None, f"{rel} uses ->{field} but could not be parsed ({ff.failed})"
        text = ff.text
        for off, base, kind in M.uses(text, field):
            line = ff.line_of(off)
            if kind in ("store", "test"):
                continue
            t = None
            if stype is not None and base:
                parts = M.path_parts(base)
                t = _path_type_at(g, rel, text, parts, off) if parts else None
                if t is not None and t != stype:
                    continue                    # a member of that name in another struct
            if kind == "use" and t is not None and _slot_copy(g, rel, text, off, field, stype):
                continue                    # `a->m = b->m;`: the pointer stays in the member
            mac = ff.macro_at(line)
            if mac:
                return None, f"->{field} used in macro {mac[0]} ({rel}:{line})"
            if kind == "use" and _cleared_or_sized(g, rel, text, off, field):
                continue                    # memset(x->m, 0, ...) stores NULLs; sizeof reads nothing
            if kind == "use":
                local = _local_calls(ff, off, field, base)
                if local is None:
                    return None, f"->{field} read at {rel}:{line} (the pointer is passed on)"
                calls.extend((rel, c) for c in local)
                continue
            if kind != "call":
                return None, f"->{field} read at {rel}:{line} (the pointer is passed on)"
            col = off - ff.offset(line, 0)
            c = ff.calls.get((line, col))
            if c is None:
                # in a function spatch dropped: followed where the text settles it (textual.py)
                caller = g.textual_caller(ff, line)
                if caller is None:
                    return None, f"call through ->{field} that spatch could not parse ({rel}:{line})"
                calls.append((rel, _TextCall(line, caller)))
                continue
            if c.callee != "." + field or not c.func or c.func == "something_else":
                return None, f"call through ->{field} that spatch could not parse ({rel}:{line})"
            calls.append((rel, c))
    if not calls:
        return None, f"no call through ->{field} found"
    if len(calls) > MAX_MEMBER_CALLS:
        return None, f"{len(calls)} calls through ->{field}: too many to follow"
    return calls, None


_SLOT_STORE = re.compile(r"\s*([^;{}=]*?)(->|\.)\s*(\w+)\s*=\s*([^=;]*?)\s*(->|\.)\s*$")


def _slot_copy(g, rel, text, off, field, stype):
    """`padapter->intf_start = primary->intf_start;` (Realtek os_intfs.c), both of struct
    stype: the value read from the member is stored back into the same member of the same
    type, so the functions that member can hold stay those stored into it elsewhere. Only a
    whole statement of that shape, both sides' types settled by the text."""
    stmt = max(text.rfind(ch, 0, off) for ch in ";{}") + 1
    m = _SLOT_STORE.match(text, stmt, off)
    if not m or m.end() != off or m.group(3) != field or \
            not re.match(r"\s*;", text[off + len(field):off + len(field) + 40]):
        return False
    parts = M.path_parts(m.group(1).strip())
    return bool(parts) and _path_type_at(g, rel, text, parts, off) == stype


_LOCAL_STORE = re.compile(r"\s*([A-Za-z_]\w*)\s*=\s*([^=;]*?)\s*(->|\.)\s*$")
_LOOKED_AT = re.compile(r"\s*(\)|&&|\|\||==|!=)")


def _local_calls(ff, off, field, base):
    """`rd = p->io_ops._read_port; rd(p, addr);` (Realtek's rtw_io.c): the member read into
    a local function pointer of the function, which the function only calls or tests. Its
    calls are calls through the member: the Call records spatch made of them; None when the
    text does not settle it (a global, another use or store, a call spatch did not record)."""
    text = ff.text
    stmt = _statement_start(text, off)
    m = _LOCAL_STORE.match(text, stmt, off)
    if not m or m.end() != off or " ".join(m.group(2).split()) != " ".join(base.split()) or \
            not re.match(r"\s*;", text[off + len(field):off + len(field) + 40]):
        return None
    return calls_of_local(ff, off, m.group(1), m.start(1))


def _statement_start(text, off):
    """Where the statement around off starts, past the directive lines before it (`#endif`)."""
    stmt = max(text.rfind(ch, 0, off) for ch in ";{}") + 1
    while True:
        d = _DIRECTIVE.match(text, stmt, off)
        if not d:
            return stmt
        stmt = d.end()


_DIRECTIVE = re.compile(r"\s*#[^\n]*")
_COPY = re.compile(r"\s*([A-Za-z_]\w*)\s*=\s*$")


def local_copy(ff, off, name):
    """`ring_sub_send = ring_send_sub_cb[ring_id];` (Broadcom): the variable `name` at off
    read, whole or one element, into a local of the function: calls_of_local()'s answer;
    None for any other statement."""
    text = ff.text
    stmt = _statement_start(text, off)
    m = _COPY.match(text, stmt, off)
    end = M._skip_index(text, off + len(name))
    if not m or m.end() != off or not re.match(r"\s*;", text[end:end + 40]):
        return None
    return calls_of_local(ff, off, m.group(1), m.start(1))


def calls_of_local(ff, off, local, store_at):
    """The Call records of the calls of `local`, a variable of the function around off that
    the statement at store_at assigns: it must be declared once in that function (`u32
    (*rd)(struct intf_hdl *, ...);`, or `dbg_ring_send_sub_t ring_sub_send;` with a type
    name), and only called or tested besides; None otherwise (a global, another use or
    store, a call spatch did not record)."""
    text = ff.text
    fn_start, fn_end = text.rfind("\n{", 0, off), text.find("\n}", off)
    if fn_start < 0 or fn_end < 0 or text.rfind("\n}", 0, off) > fn_start:
        return None                     # not inside one kernel-style function body
    body = text[fn_start:fn_end]
    # declared once in this function as a pointer to a function, after a type word (a call
    # `(*rd)(p)` or `return (*rd)(p)` is none), or as a plain variable of a type name
    decls = [d.start(2) for d in re.finditer(r"(?<!\w)([A-Za-z_]\w*)[\s*]*\(\s*\*\s*(%s)\s*\)\s*\(" % re.escape(local), body)
             if d.group(1) not in KEYWORDS]
    decls += [d.start(2) for d in re.finditer(r"[;{}]\s*(?:const\s+)?([A-Za-z_]\w*)\s*(?:\*\s*)*(%s)\s*[;=]" % re.escape(local),
                                              body) if d.group(1) not in KEYWORDS]
    if len(decls) != 1:
        return None
    decl_at = fn_start + decls[0]
    found = []
    for u in re.finditer(r"(?<![\w.>])%s\b" % re.escape(local), body):
        at, end = fn_start + u.start(), fn_start + u.end()
        after = text[end:end + 40]
        if at in (store_at, decl_at):
            continue
        if re.match(r"\s*\(", after):
            line = ff.line_of(at)
            c = ff.calls.get((line, at - ff.offset(line, 0)))
            if c is None or c.callee != local or not c.func or c.func == "something_else":
                return None
            found.append(c)
        elif not _looked_at(text, at, after):
            return None                 # stored again, passed on, returned
    return found or None


def _looked_at(text, at, after):
    """`if (rd)`, `!rd`, `rd == NULL`, `WARN_ON(!rd)`: the pointer at offset at is tested,
    not passed on (`defer(rd)` passes it)."""
    before = text[:at].rstrip()
    if re.match(r"\s*(==|!=)", after) or before.endswith(("!", "&&", "||", "==", "!=")):
        return True
    if before.endswith("(") and _LOOKED_AT.match(after):
        callee, _idx = _enclosing_call(text, at)
        return callee is None or callee in M.TESTING_CALLS
    return False
