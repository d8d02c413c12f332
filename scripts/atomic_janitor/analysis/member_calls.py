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
- there is at least one such call, and not more than the limits below.
A core type (defined under include/ or arch/) is seen by most of a kernel tree, but its
core's calls are in the tree too: there the files are every file that names the member,
read raw first, and the analysed ones those with a call or read on a T or an untyped base.
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
    plans = []
    for n, stype, field, cf, line, lhs in pending:
        ff = g.facts[cf]
        if stype is None and lhs is not None:
            stype = _lhs_type(g, ff, lhs, field, line)
        key = (stype, field, driver_root(cf, g.tree.kind) if stype is None else None)
        if key not in g._member_files:
            g._member_files[key] = _candidate_files(g, stype, field, cf)
        files, why = g._member_files[key]
        plans.append((n, stype, field, cf, line, lhs, files, why))
    g.load({f for p in plans if p[6] for f in p[6]})
    new = []
    for n, stype, field, cf, line, lhs, files, why in plans:
        calls = None
        if why is None:
            calls, why = _member_calls(g, stype, field, files)
        if why is not None:
            what = (f"function pointer stored at run time ({lhs} {n.name})" if lhs is not None else
                    f"callback {('struct ' + stype) if stype else 'initialiser'} .{field} (context of this "
                    "callback not known)")
            n.entries.append((E.UNKNOWN, f"{what}: {why}", cf, line, "registration"))
            continue
        for rel, c in calls:
            caller = g.node(rel, c.func)
            e = g.add_call_edge(caller, n, rel, c)
            e.via = (field, cf, line)
            if not caller.expanded:
                new.append(caller)
    return new


def _text(g, rel):
    return g.text_facts(rel).text


def struct_defs(g, stype):
    """Files defining `struct stype {`, memoised per graph. The raw text is searched (a
    struct name such as `device` is in thousands of files), headers under include/ and
    arch/ first: one definition there makes it a core type, and the search stops."""
    if stype not in g._struct_defs:
        files = sorted((f for f in g.pre.files_with([stype]) if f.endswith((".c", ".h"))),
                       key=lambda f: (not f.startswith(("include/", "arch/")), f))
        found = []
        for rel in files:
            if found and found[0].startswith(("include/", "arch/")) and not rel.startswith(("include/", "arch/")):
                break
            if stype in _structs_defined(g, rel):
                found.append(rel)
        g._struct_defs[stype] = sorted(found)
    return g._struct_defs[stype]


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
    alias = lambda w: typedef_tag(g, w)  # noqa: E731
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
    alias = lambda w: typedef_tag(g, w)  # noqa: E731
    t = M.var_type(text, parts[0], at, alias)
    for member in parts[1:]:
        if t is None:
            return None
        defs = struct_defs(g, t)
        bodies = [M.struct_body(_text(g, d), t) for d in defs]
        types = {M.member_type(b, member, alias) for b in bodies if b}
        t = types.pop() if len(types) == 1 else None
    return t


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
    else:
        defs = struct_defs(g, stype)
        if not defs:
            return None, f"struct {stype} is not defined in the tree"
        if kind == "kernel" and any(d.startswith(("include/", "arch/")) for d in defs):
            return _core_candidate_files(g, stype, field)
        if stype not in g._includers:
            g._includers[stype] = _includers(g, defs)
        seeing, why = g._includers[stype]
        if why:
            return None, f"struct {stype}: {why}"
        pool = [f for f in mention if f in seeing]
        bare = re.compile(_BARE_ARG % re.escape(field))
        for f in pool:
            if bare.search(_raw(g, f)):
                why = _macro_member_arg(g, f, field)
                if why:
                    return None, why
    if len(pool) > MAX_MEMBER_FILES * 4:
        return None, f"->{field} is named in {len(pool)} files: too many to follow"
    files = []
    for f in pool:
        text = _text(g, f)
        if not re.search(r"(->|\.)\s*%s\b" % re.escape(field), text):
            continue
        files.append(f)
    if len(files) > MAX_MEMBER_FILES:
        return None, f"->{field} is used in {len(files)} files: too many to follow"
    return sorted(files), None


# A core type's member is named all over the tree: its files are read raw first (C-speed
# search), and only those with a call or a read through the member are analysed.
MAX_CORE_MENTIONS = 3000
_BARE_ARG = r"[(,]\s*%s\s*[,)]"


def _core_candidate_files(g, stype, field):
    """For a struct type defined under include/ or arch/ in a whole kernel tree: the core's
    own calls are in the tree too, so the calls through the member are every `->field(` and
    `.field(` in the tree on a base of that type, or on a base whose type the text does not
    settle. (files to analyse, None) or (None, why not)."""
    mention = [f for f in g.pre.files_with([field]) if f.endswith((".c", ".h"))]
    if len(mention) > MAX_CORE_MENTIONS:
        return None, f"->{field} is named in {len(mention)} files: too many to follow"
    use = re.compile(r"(->|\.)\s*%s\b" % re.escape(field))
    bare = re.compile(_BARE_ARG % re.escape(field))
    files = []
    for f in mention:
        raw = _raw(g, f)
        if bare.search(raw):
            why = _macro_member_arg(g, f, field)
            if why:
                return None, why
        if not use.search(raw):
            continue
        text = _text(g, f)
        for off, base, kind in M.uses(text, field):
            if kind in ("store", "test"):
                continue
            t = use_type(g, text, off, base)
            if t is None or t == stype:
                files.append(f)
                break
    if len(files) > MAX_MEMBER_FILES:
        return None, f"->{field} is called or read in {len(files)} files: too many to follow"
    if not files:
        return None, f"no call through ->{field} found"
    return sorted(files), None


def _macro_member_arg(g, rel, field):
    """Why the calls through ->field cannot all be found in rel, or None: a function-like
    macro that calls or reads a member named by its parameter (`v4l2_subdev_call(sd, video,
    s_stream, 1)` calls `->s_stream` with no `->s_stream` in the text) given `field`."""
    ff = g.text_facts(rel)
    text = ff.text
    for m in re.finditer(_BARE_ARG % re.escape(field), text):
        at = text.index(field, m.start())
        callee, idx = _enclosing_call(text, at)
        if callee and _member_param(g, callee, idx):
            return f"->{field} named by macro {callee}() ({rel}:{ff.line_of(at)})"
    return None


def _member_param(g, name, idx):
    """Does some `#define name(...)` in the tree use its idx-th parameter as a member name,
    itself or through another macro it passes the parameter to? Memoised per graph. (A
    pasted member name, `->p##_cb`, is no argument's text: not seen.)"""
    key = (name, idx)
    if key in g._member_params:
        return g._member_params[key]
    g._member_params[key] = False           # a macro that passes itself its own argument
    hit = False
    head = re.compile(r"^[ \t]*#[ \t]*define[ \t]+%s\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)" % re.escape(name), re.M)
    for f in g.pre.files_with([name]):
        if hit:
            break
        if not f.endswith((".c", ".h")):
            continue
        raw = _raw(g, f)
        if "define" not in raw:
            continue
        for m in head.finditer(raw):
            params = [p.strip() for p in m.group(1).split(",")]
            if idx < len(params):
                p = params[idx]
            elif params and params[-1].endswith("..."):
                p = params[-1]
            else:
                continue
            variadic = p.endswith("...")
            if variadic:
                p = p[:-3].strip() or "__VA_ARGS__"
            body = m.group(2)
            if re.search(r"(->|\.)\s*%s\b(?!\s*##)" % re.escape(p), body):
                hit = True
                break
            for a in re.finditer(r"[(,]\s*(?:##\s*)?%s\s*[,)]" % re.escape(p), body):
                inner, at = _enclosing_call(body, body.index(p, a.start()))
                # a variadic argument may land on any later parameter of the inner macro
                if inner and any(_member_param(g, inner, i) for i in
                                 range(at, at + (8 if variadic else 1))):
                    hit = True
                    break
            if hit:
                break
    g._member_params[key] = hit
    return hit


_CAST = re.compile(r"\(\s*(?:const\s+)?struct\s+(\w+)\s*(?:const\s*)?\*\s*\)")


def use_type(g, text, off, base):
    """The struct type of the base of the member use at off (its name's offset), or None.
    A plain path (`a->b.c`) by declarations; also `(*p)->m`, `((struct T *)x)->m` and
    `f(x)->m` by f's return type, or by f's `container_of(x, struct T, ...)` when f is a
    macro."""
    if base:
        parts = M.path_parts(base)
        return _type_of_path(g, text, parts, off) if parts else None
    j = off
    while j > 0 and text[j - 1].isspace():
        j -= 1
    j -= 2 if text[j - 2:j] == "->" else 1
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j <= 0 or text[j - 1] != ")":
        return None
    close = j - 1
    depth = 0
    k = close
    while k >= 0:
        if text[k] == ")":
            depth += 1
        elif text[k] == "(":
            depth -= 1
            if depth == 0:
                break
        k -= 1
    if k < 0:
        return None
    inner = text[k + 1:close].strip()
    name = re.search(r"(->|\.)?\s*([A-Za-z_]\w*)\s*$", text[max(0, k - 80):k])
    if name and name.group(2) not in KEYWORDS:
        # f(x)->m; a call through a member (`a->get(x)->m`) returns what no name says
        return returns(g, name.group(2)) if not name.group(1) else None
    cast = _CAST.match(inner)
    if cast:
        return cast.group(1)
    deref = re.fullmatch(r"\*\s*([A-Za-z_][\w.>\s-]*)", inner)
    if deref:
        parts = M.path_parts(deref.group(1).strip())
        return _type_of_path(g, text, parts, off) if parts else None
    return None


MAX_RETURN_FILES = 100


def returns(g, name):
    """The struct type that function `name` returns a pointer to (or that macro `name`
    gives by container_of), when every definition in the tree agrees; None otherwise."""
    if name not in g._returns:
        func = re.compile(r"\bstruct\s+(\w+)\s*(?:const\s*)?\*\s*%s\s*\(" % re.escape(name))
        mac = re.compile(r"^[ \t]*#[ \t]*define[ \t]+%s\b(.*)" % re.escape(name), re.M)
        got = set()
        files = [f for f in g.pre.files_with([name]) if f.endswith((".c", ".h"))]
        if len(files) > MAX_RETURN_FILES:
            got.add(None)
        for f in files[:MAX_RETURN_FILES]:
            raw = _raw(g, f)
            got.update(func.findall(raw))
            for m in mac.finditer(raw):
                c = re.match(r"\([^)]*\)\s*\(?\s*container_of(?:_const)?\s*\([^,]*,\s*(?:const\s+)?struct\s+(\w+)\s*,",
                             m.group(1))
                got.add(c.group(1) if c else None)
        g._returns[name] = got.pop() if len(got) == 1 else None
    return g._returns[name]


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
        for f in g.pre.files_with(sorted({n[:-2] for n in by_name})):
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
            if stype is not None:
                t = use_type(g, text, off, base)
                if t is not None and t != stype:
                    continue                    # a member of that name in another struct
            mac = ff.macro_at(line)
            if mac:
                return None, f"->{field} used in macro {mac[0]} ({rel}:{line})"
            if kind != "call":
                return None, f"->{field} read at {rel}:{line} (the pointer is passed on)"
            col = off - ff.offset(line, 0)
            c = ff.calls.get((line, col))
            if c is None or c.callee != "." + field or not c.func or c.func == "something_else":
                return None, f"call through ->{field} that spatch could not parse ({rel}:{line})"
            calls.append((rel, c))
    if not calls:
        return None, f"no call through ->{field} found"
    if len(calls) > MAX_MEMBER_CALLS:
        return None, f"{len(calls)} calls through ->{field}: too many to follow"
    return calls, None
