"""The call graph over the whole tree, found upward from the functions holding findings by a
name-grep closure, and the fixed-point propagation of contexts over it (DESIGN 5)."""

import os
import re
import time

from .. import spatch
from .. import ctext
from . import entries as E
from . import forwarding
from . import gen_facts_rule as G
from .callback_docs import CallbackDocs
from .roots import driver_root as _driver_root
from ..tree import walk_sources
from . import macro_args
from . import member_calls
from . import members
from . import paste
from . import static_vars
from . import tables
from . import textual
from .facts import (HELPER_RULE, KEYWORDS, KMAP_ACQ, KMAP_REL, REGION_RULE, RULE, FileFacts, array_element_type,
                    call_around, classify_mention, textual_mentions)

MAX_NODES = 60000           # whole graph: a safety net against runaway growth only
MAX_SITE_NODES = 4000      # functions above one site; more is unknown (site_ctx)
MAX_ROUNDS = 12            # caller levels above a site; deeper chains end as unknown
MAX_CALLER_FILES = 40      # a function called from more files than this is treated as unknown
HELPER_NAME = re.compile(r"lock|critical|irq|enter|exit|acquire|release|disable|enable|save|restore|_bh|"
                         r"protect|atomic|preempt|rcu", re.I)
TRYLOCK = "trylock"


# What a lock helper's body must mention: a region primitive, or a call that may be
# another helper. A definition mentioning neither cannot open or close a region, and its
# file (often a large one) need not be parsed.
PRIMITIVE_NAMES = frozenset(G.ALL_ACQ) | frozenset(G.ALL_REL) | frozenset(G.TRYLOCKS)
PRIMITIVES = re.compile(r"\b(%s)\b" % "|".join(sorted(PRIMITIVE_NAMES)))
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


# A trylock macro opens a region too: after `if (FX_TRYLOCK(d)) {` the lock is held. Read
# as opening one unconditionally, it errs towards atomic (the kept branch that never sleeps).
ACQ_FAMILY = dict({n: fam for fam, _paired, acqs, _rels in G.FAMILIES for n in acqs},
                  **{n: TRYLOCK for n in G.TRYLOCKS})
REL_NAMES = frozenset(G.ALL_REL)
_MACRO_DEF = r"^[ \t]*#[ \t]*define[ \t]+(%s)\b((?:[^\n]*\\\n)*[^\n]*)"


def _macro_helpers(ff, acq_helpers=frozenset(), rel_helpers=frozenset()):
    """The macros of ff that open or close a region around the code after their use, as a
    helper function would (`#define LM_LOCK(d) spin_lock(&(d)->lock)`, `LM_LOCK(d); f();`):
    spatch does not expand them, so their calls are helpers' calls.
    [(name, line, family or None, opens)]; a body that both opens and closes opens nothing."""
    out = []
    for first, _last, (name, _params, body) in ctext.defines(ff.lines):
        if name in PRIMITIVE_NAMES:
            continue
        called = CALL.findall(body)
        opens = [c for c in called if c in ACQ_FAMILY or c in acq_helpers]
        closes = [c for c in called if c in REL_NAMES or c in rel_helpers]
        if opens and not closes:
            out.append((name, first, ACQ_FAMILY.get(opens[0], "helper"), True))
        elif closes and not opens:
            out.append((name, first, None, False))
    return out


def _near(rel, roots, dirs):
    """Is `rel` in one of the driver directories `roots` ("dir/" prefixes; "/" is the whole
    tree of a module directory) or in one of `dirs`?"""
    return "/" in roots or rel.startswith(roots) or os.path.dirname(rel) in dirs


def _builds_objects(directory):
    """Does directory hold a Kbuild makefile that builds objects (a module's root)?"""
    for name in ("Kbuild", "Makefile"):
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as fh:
                if re.search(r"^[ \t]*obj-(m|y|\$\()", fh.read(), re.M):
                    return True
        except OSError:
            continue
    return False


def _body_after(text, i):
    """The braced body of the definition whose head ends before offset i ('' if none)."""
    j = text.find("{", i)
    if j < 0 or ";" in text[i:j]:
        return ""
    return text[j:ctext.matching(text, j) + 1]


def _may_open_region(body):
    if PRIMITIVES.search(body):
        return True
    return any(HELPER_NAME.search(m.group(1)) for m in CALL.finditer(body))


_GUARD = re.compile(r"\b(scoped_)?guard\s*\(")
# kmap_atomic() opens a region too (facts.py reads its span from the call records)
_KMAP = re.compile(r"\b(%s)\s*\(" % "|".join(sorted(KMAP_ACQ | KMAP_REL)))


# The primitives facts-context.cocci's helper rules (hold_*, rel) follow; a trylock, a
# guard() scope or kmap_atomic() they do not.
_HELPER_RULE_PRIMITIVES = frozenset(G.ALL_ACQ) | frozenset(G.ALL_REL)


def _leaves_regions_alone(ff, name):
    """Did spatch parse the one definition of `name` in ff and find that it neither returns
    with a region open nor closes its caller's (facts-context.cocci's helper rules, which
    decide the same for the callees of a parsed caller), with no region primitive that
    those rules do not follow? Then a call of it opens no region in its caller, whatever its
    body does inside (rwnx_send_msg()'s spin_lock_bh()/spin_unlock_bh())."""
    if ff.failed or name not in ff.defs or name in ff.acquires or name in ff.releases:
        return False
    bodies = _definition_bodies(ff.text, [name])
    if len(bodies) != 1:
        return False
    named = {m.group(1) for m in PRIMITIVES.finditer(bodies[0])}
    return named <= _HELPER_RULE_PRIMITIVES and not _GUARD.search(bodies[0]) and not _KMAP.search(bodies[0])


def _untyped(what, detail):
    """A store whose struct type the text left open: an untagged struct's (tables.py)?"""
    return (what == "other" or what == "init" and detail[0] is None or
            what == "init-pos" and detail[0].startswith("typedef "))


def _names_region_primitive(text):
    """Does text call a region primitive or open a guard() scope?"""
    return bool(PRIMITIVES.search(text) or _GUARD.search(text) or _KMAP.search(text))


def _definition_bodies(text, names):
    """The bodies of the functions and macros among `names` that `text` defines."""
    if not names:
        return []                   # an empty alternation would match every call
    # A definition's head line (line-bound: spanning lines, the pattern backtracks badly).
    alt = "|".join(sorted(map(re.escape, names)))
    defre = re.compile(r"^[A-Za-z_][^;=\n]*\b(%s)\s*\([^;\n]*$" % alt, re.M)
    return [_body_after(text, m.end()) for m in defre.finditer(text)] + \
        [m.group(2) for m in re.finditer(_MACRO_DEF % alt, text, re.M)]


def _defines_opener(text, names):
    """Does `text` define one of `names` (a function or a macro) with a body that may open
    or close a region?"""
    return any(_may_open_region(b) for b in _definition_bodies(text, names))


class Node:
    __slots__ = ("key", "file", "name", "macro", "static", "line", "exported", "entries", "expanded",
                 "params", "unused", "textual", "closes_own", "head")

    def __init__(self, file, name, macro=False, static=False, line=None, params=""):
        self.key = (file, name)
        self.file, self.name, self.macro, self.static, self.line = file, name, macro, static, line
        self.exported = None
        self.entries = []            # [(ctx, fact, file, line, kind)]
        self.expanded = False
        self.params = params
        self.unused = False          # a macro no file of the tree uses: on no path
        self.textual = False         # defined where spatch could not parse: read from the text
        self.closes_own = False      # read from the text: takes regions, each dropped in straight code
        self.head = None             # (macro, [#define lines]): its head is a macro's body (funchead.py)


class Edge:
    __slots__ = ("caller", "callee", "file", "line", "atomic", "inherit", "unknown", "region_fact", "config", "_call",
                 "via", "textual")

    def __init__(self, caller, callee, file, line):
        self.caller, self.callee, self.file, self.line = caller, callee, file, line
        self.atomic = False
        self.inherit = True
        self.unknown = None
        self.region_fact = None
        self.config = []
        # (how, file, line[, note]): a call through a struct member (`->m`, stored at file:line)
        # or through a wrapper's parameter (`its parameter fn`, passed at file:line)
        self.via = None
        self.textual = False         # a call spatch did not parse, read from the text (textual.py)


def head_note(n):
    """The textual step under a function whose head spatch saw as a macro (funchead.py)."""
    if not n.head:
        return ""
    macro, lines = n.head
    return (f" ({n.name}() is defined as {macro}() {{...}}: read from the text, every #define of "
            f"{macro}() in {n.file} (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}) "
            f"is the head of {n.name}())")


def call_fact(e):
    """How the evidence names a call: by name, or through the struct member it was stored in."""
    fact = f"{e.caller.name}() calls {e.callee.name}(){head_note(e.caller)}"
    if e.via:
        how, f, line = e.via[:3]
        verb = "passed" if how.startswith("its parameter") else "stored"
        fact += f" through {how} ({verb} at {f}:{line}{''.join('; ' + x for x in e.via[3:])})"
    if e.textual and e.caller.closes_own:
        fact += (f" (read from the text: spatch could not parse the call; {e.caller.name}() holds no lock, "
                 "irq, bh, preempt or RCU region there: each one it takes, it drops again in straight code)")
    elif e.textual:
        fact += (f" (read from the text: spatch could not parse the call; {e.caller.name}() takes no lock, "
                 "irq, bh, preempt or RCU region)")
    return fact


class MemoStore:
    """The scan's Store, with each cache document loaded once and written once in a while:
    the facts cache is large (55 MB on 6.1 with PREDICATES=all), and writing it after each
    of the closure's rounds cost a cold scan 27 s of JSON."""

    FLUSH_EVERY = 60.0          # seconds of parsing a run cut short may lose

    def __init__(self, store):
        self.store = store
        self.macro_file = getattr(store, "macro_file", None)
        self.docs = {}
        self.dirty = set()
        self.flushed = time.monotonic()

    def load(self, name):
        if name not in self.docs:
            self.docs[name] = self.store.load(name)
        return self.docs[name]

    def save(self, name, data):
        self.docs[name] = data
        self.dirty.add(name)

    def flush(self, force=True):
        if not force and time.monotonic() - self.flushed < self.FLUSH_EVERY:
            return
        for name in sorted(self.dirty):
            self.store.save(name, self.docs[name])
        self.dirty.clear()
        self.flushed = time.monotonic()


class Graph:
    def __init__(self, tree, store, fps, pre, jobs):
        store = MemoStore(store)
        self.tree, self.store, self.fps, self.pre, self.jobs = tree, store, fps, pre, jobs
        self.root = tree.root
        self.facts = {}
        self.nodes = {}
        self.edges = []
        self.in_edges = {}
        self.helpers_acq, self.helpers_rel = {}, {}
        self.spatch_runs = 0
        self.cut = False
        self._irq_safe = {}
        self._site_callees = {}
        self._mention_facts = {}
        self.docs = CallbackDocs(self.root, pre)
        self._pending_docs = []
        self._pending_members = []
        self._paste_parts = None        # _may_be_pasted: the `x##` and `##x` fragments of a module directory
        self._macro_defs = {}           # _macro_definitions, per (name, driver root, directory)
        self._near_sets = {}            # (driver roots, directories) -> the files there (_near_files_with)
        self._modules = {}              # directory -> the module it belongs to (_module_dir)
        self._struct_defs = {}          # member_calls' memos, per graph
        self._includers = {}
        self._include_lines = {}
        self._member_files = {}
        self._typedefs = {}
        self._structs_in = {}
        self._typedefs_in = {}
        self._member_params = {}
        self._path_types = {}           # member_calls._path_type_at
        self._too_large = set()
        self._forwarding = []           # forwarding.py: (callee, idx, where passed) of the wrappers followed
        self._pending_forwards = []     # _forward's work, done once the round's names are searched for
        self.forwarded = {}             # (node key, file, line) of a wrapper's store -> (parameter, where passed)

    # ------------------------------------------------------------ facts
    def _lines(self, rel):
        with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as fh:
            return fh.readlines()

    def load(self, files):
        todo = sorted({f for f in files if f not in self.facts and os.path.isfile(os.path.join(self.root, f))})
        if not todo:
            return
        res = spatch.run(RULE, self.root, todo, [], self.fps, self.store, self.jobs, label="facts")
        self.spatch_runs += res.ran
        for rel in todo:
            try:
                lines = self._lines(rel)
            except OSError as exc:
                self.facts[rel] = FileFacts(rel, [], [], failed=f"unreadable: {exc.strerror}")
                continue
            self.facts[rel] = FileFacts(rel, lines, res.records.get(rel, []), res.failed.get(rel))
        self.store.flush(force=False)   # keep most of what was parsed if the run is cut short

    def regions(self, site_callees):
        """Second pass: the regions around the calls the graph follows (its edges) and the
        site_callees {file: names} (the predicate itself, sleep evidence near it). Asking
        for those calls only is what keeps the path analysis affordable."""
        want = {f: set(ns) for f, ns in site_callees.items() if f in self.facts}
        for f, ns in self._edge_callees().items():
            want.setdefault(f, set()).update(ns)
        files = sorted(f for f in want if not self.facts[f].failed)
        if not files:
            return
        names = {f: sorted(want[f]) for f in files}
        res = spatch.run(REGION_RULE, self.root, files, names, self.fps, self.store, self.jobs, label="regions",
                         select=self._own_calls)
        self.spatch_runs += res.ran
        for f in files:
            if f in res.failed:
                self.facts[f].failed = res.failed[f]
            self.facts[f].add(res.records.get(f, []))

    def _own_calls(self, rel, names, records):
        """Region records of a shared spatch run that concern calls of `names` (records of
        other kinds do not depend on the names asked for)."""
        ff = self.facts[rel]
        keep = set(names)
        out = []
        for r in records:
            if r["kind"] in ("region", "entry"):
                c = ff.calls.get((r["line"], r["col"]))
                if c is None or c.callee not in keep:
                    continue
            out.append(r)
        return out

    def _edge_callees(self):
        """{file: callee names} of the calls the graph follows."""
        want = {}
        for e in self.edges:
            if getattr(e, "_call", None) is not None:
                want.setdefault(e.file, set()).add(e._call.callee if e._call else e.callee.name)
        return want

    def _helper_visible(self, user, hfile, static, name):
        """Can a call in `user` mean the helper `name` defined in `hfile`? Only a definition
        that a scan of `user`'s own functions would load counts, so that a helper's effect
        never depends on which other files the scan happened to load: the same file, or
        (for a lock-helper name) a header or a non-static definition in the driver's
        directory. A static helper of another driver with the same name is a different
        function; the kernel's own wrappers in include/ are the region rule's primitives."""
        if hfile == user:
            return True
        if not HELPER_NAME.search(name) or name in PRIMITIVE_NAMES:
            return False
        near = _near(hfile, (_driver_root(user, self.tree.kind) + "/",), {os.path.dirname(user)})
        return near and (hfile.endswith(".h") or not static)

    def helpers(self):
        """Lock helpers: functions that return with a region open / close one they did not open.
        Applied at their call sites by facts-helpers.cocci, to a fixed point; each file sees
        only the helper definitions visible from it (_helper_visible)."""
        asked = {}
        for _round in range(3):
            acq, rel = {}, {}           # name -> [(file, line, family|None, static)]
            for ff in self.facts.values():
                # The primitives' own definitions (include/linux/spinlock.h, loaded when a
                # chain passes through it) are the region rule's business, never helpers: as
                # helpers, spin_unlock_irqrestore() after the macro spin_lock_irqsave() would
                # read as "releases its caller's lock".
                for fn, (fam, at) in ff.acquires.items():
                    if fn in ff.defs and fn not in PRIMITIVE_NAMES:
                        acq.setdefault(fn, []).append((ff.rel, ff.defs[fn]["line"], fam, ff.defs[fn]["static"]))
                for fn, at in ff.releases.items():
                    if fn in ff.defs and fn not in ff.acquires and fn not in PRIMITIVE_NAMES:
                        rel.setdefault(fn, []).append((ff.rel, ff.defs[fn]["line"], None, ff.defs[fn]["static"]))
                # a macro defined in a .c file is seen by that file only, as a static function
                static = ff.rel.endswith(".c")
                for name, line, fam, opens in _macro_helpers(ff, frozenset(self.helpers_acq),
                                                             frozenset(self.helpers_rel)):
                    (acq if opens else rel).setdefault(name, []).append((ff.rel, line, fam, static))
            for name, defs in acq.items():
                self.helpers_acq.setdefault(name, defs[0][:3])
            for name, defs in rel.items():
                self.helpers_rel.setdefault(name, defs[0][:2])
            hn = set(acq) | set(rel)
            callees = self._edge_callees()
            # Only where it matters: files holding callers in the graph.
            graph_files = {e.file for e in self.edges} | {n.file for n in self.nodes.values()}
            per_file = {}
            for f in sorted(graph_files):
                if f not in self.facts:
                    continue
                called = {c.callee for c in self.facts[f].calls.values()} & hn
                mine = {"+" + n for n in called
                        if any(self._helper_visible(f, d[0], d[3], n) for d in acq.get(n, []))}
                mine |= {"-" + n for n in called
                         if any(self._helper_visible(f, d[0], d[3], n) for d in rel.get(n, []))}
                if mine and not mine <= asked.get(f, set()):
                    asked[f] = asked.get(f, set()) | mine
                    per_file[f] = sorted(asked[f] | self._site_callees.get(f, set()) | callees.get(f, set()))
            if not per_file:
                break
            # The helper names (+opens, -closes) and, per file, the callees whose regions count.
            res = spatch.run(HELPER_RULE, self.root, sorted(per_file), per_file, self.fps, self.store,
                             self.jobs, label="helpers", select=self._own_calls)
            self.spatch_runs += res.ran
            for f in per_file:
                self.facts[f].add(res.records.get(f, []))

    # ------------------------------------------------------------ nodes
    def node(self, file, name, macro=False):
        key = (file, name)
        n = self.nodes.get(key)
        if n is None:
            ff = self.facts.get(file)
            d = ff.defs.get(name) if ff else None
            line = d["line"] if d else None
            if macro and line is None:
                line = self._define_line(file, name)
            n = Node(file, name, macro=macro,
                     static=bool(d and d["static"]) or (macro and file.endswith(".c")),
                     line=line, params=d["params"] if d else "")
            if d and "head_macro" in d:
                n.head = (d["head_macro"], ff.head_macros[d["head_macro"]][3])
            self.nodes[key] = n
        return n

    def _may_be_pasted(self, name):
        """Could a `##` build `name`, or assembly name it? The word index sees neither: a
        `##` of the module directory (`rtw_##x##_f`), a kernel header's paste with a word
        of the directory (`DEVICE_ATTR_RO(foo)` names foo_show(), paste.py), a macro that
        pastes its arguments, a .S file. Read once a graph; a kernel tree is not searched
        (the word index is all it has there)."""
        if self.tree.kind == "kernel":
            return False
        if self._paste_parts is None:
            heads, tails, pasters, asm = set(), set(), False, []
            for rel, _size, _mtime in walk_sources(self.root):
                try:
                    text = "".join(self._lines(rel))
                except OSError:
                    continue
                h, t = paste.fragments(text)
                heads |= h
                tails |= t
                pasters = pasters or bool(paste.ARG_PASTERS.search(text))
            for d, subdirs, files in os.walk(self.root):
                subdirs[:] = sorted(x for x in subdirs if not x.startswith("."))
                for f in sorted(files):
                    if f.endswith((".S", ".s", ".lds", ".asm")):
                        asm.append("".join(self._lines(os.path.relpath(os.path.join(d, f), self.root))))
            self._paste_parts = (heads, tails, pasters, "\n".join(asm))
        heads, tails, pasters, asm = self._paste_parts
        if pasters or paste.may_build(name, heads, tails) or re.search(r"\b%s\b" % re.escape(name), asm):
            return True
        kheads, ktails = paste.kernel_fragments()
        # A kernel macro pastes its fragment to a word the driver writes as its argument.
        rests = {name[len(h):] for h in kheads if name.startswith(h) and name != h} | \
            {name[:-len(t)] for t in ktails if name.endswith(t) and name != t}
        if any(not re.fullmatch(r"[A-Za-z_]\w*", r) for r in rests):
            return True
        return bool(rests) and bool(self.pre.files_with(sorted(rests)))

    def _define_line(self, rel, name):
        """The line of rel's first `#define name`, for the evidence of a macro node."""
        try:
            lines = self.text_facts(rel).lines
        except OSError:
            return None
        return next((first for first, _l, (mname, _p, _b) in ctext.defines(lines) if mname == name), None)

    def _irq_safe_dir(self, rel):
        """Files of the same driver marking a device pm_runtime_irq_safe() (conservative: the
        whole driver directory, since the device and its ops may be set up in different files)."""
        d = _driver_root(rel, self.tree.kind)
        if d not in self._irq_safe:
            self._irq_safe[d] = self._driver_files_with(rel, "pm_runtime_irq_safe")
        return self._irq_safe[d]

    def _driver_files_with(self, rel, word):
        """Files of rel's driver (its driver directory, or rel's own directory) mentioning word."""
        return self._near_files_with([word], (_driver_root(rel, self.tree.kind) + "/",), {os.path.dirname(rel)})

    def _near_files_with(self, names, roots, dirs):
        """[f for f in pre.files_with(names) if _near(f, roots, dirs)], searching only the
        files near: a driver's own names (its macros, its lock helpers) are looked up one at
        a time, and a search of the whole tree each would cost a second."""
        if "/" in roots:
            return self.pre.files_with(names)
        key = (roots, frozenset(dirs))
        if key not in self._near_sets:
            self._near_sets[key] = frozenset(rel for rel, _s, _m in self.pre.inventory if _near(rel, roots, dirs))
        return self.pre.files_with_in(names, key, self._near_sets[key])

    # ------------------------------------------------------------ closure
    def _unknown_for_good(self, key):
        """Nothing found later can prove this site: its function carries an UNKNOWN entry, or
        more functions than MAX_SITE_NODES lie above it already (site_ctx makes it unknown,
        and a scan of this site alone would find at least as many)."""
        if any(ent[0] == E.UNKNOWN for ent in self.nodes[key].entries):
            return True
        if key in self._too_large:
            return True
        if len(self._above(key)) > MAX_SITE_NODES:
            self._too_large.add(key)
            return True
        return False

    def _above(self, key):
        """{node: distance} of the functions within MAX_ROUNDS levels above `key` (the graph a
        scan of this site alone would walk), stopping once there are more than MAX_SITE_NODES."""
        dist = {key: 0}
        todo = [key]
        while todo and len(dist) <= MAX_SITE_NODES:
            nxt = []
            for k in todo:
                if dist[k] == MAX_ROUNDS:
                    continue
                for e in self.in_edges.get(k, []):
                    if e.caller.key not in dist:
                        dist[e.caller.key] = dist[k] + 1
                        nxt.append(e.caller.key)
            todo = nxt
        return dist

    def _reaching(self, keys):
        """The keys and every node with a path of edges to one of them."""
        todo = list(keys)
        seen = set(todo)
        while todo:
            k = todo.pop()
            for e in self.in_edges.get(k, []):
                if e.caller.key not in seen:
                    seen.add(e.caller.key)
                    todo.append(e.caller.key)
        return seen

    def build(self, start, site_callees=None):
        """start: [(file, function)]; grows the graph upward until every caller is found.
        site_callees: {file: names} whose call regions the classifier reads besides the edges."""
        self.load({f for f, _ in start})
        frontier = [self.node(f, fn) for f, fn in start]
        sites = [n.key for n in frontier]
        # A caller is left unexpanded only when every site it reaches is unknown for good: the
        # site function itself carries an UNKNOWN entry (exported, stored at run time...),
        # which nothing later removes, and which decides the site whatever its callers do.
        # An unknown that reaches a site through an edge is not enough: regions and lock
        # helpers are settled only at the end and may turn that edge into a locked one (the
        # work handler that issue 11 saw pruned). A pruned node stays unexpanded, which
        # _propagate reads as unknown, never as "contributes nothing".
        for _round in range(MAX_ROUNDS + 1):
            # once each: a caller of several functions of the round is found once per callee
            frontier = list({n.key: n for n in frontier if not n.expanded}.values())
            if _round:
                useful = self._reaching(k for k in sites if not self._unknown_for_good(k))
                frontier = [n for n in frontier if n.key in useful]
            if _round == MAX_ROUNDS:
                for n in frontier:
                    n.expanded = True
                    n.entries.append((E.UNKNOWN, f"call chain longer than {MAX_ROUNDS} levels: callers of "
                                      f"{n.name}() not followed", n.file, n.line, "limit"))
                break
            if not frontier:
                break
            if len(self.nodes) > MAX_NODES:
                self.cut = True
                for n in frontier:
                    n.expanded = True
                    n.entries.append((E.UNKNOWN, "call graph cut at %d functions" % MAX_NODES, n.file, n.line, "limit"))
                break
            need = {}
            # One search of the tree for the whole round, not one per function.
            self.pre.files_with(sorted({n.name for n in frontier if not (n.static and n.file.endswith(".c"))}))
            for n in frontier:
                if self._exported(n):
                    n.expanded = True
                    continue
                files = self._caller_files(n)
                if len(files) > MAX_CALLER_FILES:
                    n.expanded = True
                    n.entries.append((E.UNKNOWN, f"{n.name}() is used in {len(files)} files: too many callers "
                                      "to follow (treated as unknown)", n.file, n.line, "limit"))
                    continue
                need[n.key] = files
            frontier = [n for n in frontier if n.key in need]
            self.load({f for fs in need.values() for f in fs})
            nxt = []
            for n in frontier:
                nxt.extend(self._expand(n, need[n.key]))
            # What the rest of the round and the next one look up, in one search of the tree:
            # the stores' struct types and members, and the callers found so far.
            self.pre.files_with(sorted(
                {s for _n, s, _f, _cf, _l in self._pending_docs if s and not s.startswith("?") and " " not in s}
                | {p[2] for p in self._pending_docs + self._pending_members}
                | {p[2] for p in self._pending_forwards}
                | {n.name for n in nxt if not (n.static and n.file.endswith(".c"))}))
            nxt.extend(forwarding.resolve(self))
            self._resolve_docs()
            nxt.extend(member_calls.resolve(self))
            frontier = nxt
        self._site_callees = {f: set(ns) for f, ns in (site_callees or {}).items()}
        self._find_helper_defs()
        self.regions(self._site_callees)
        self.helpers()
        self._recompute_edges()

    def _exported(self, n):
        """EXPORT_SYMBOL*(name) next to the definition. In a whole kernel tree the in-tree
        callers are all the callers (the policy the evidence states); in a module directory
        the callers are unknown, and the walk stops here."""
        ff = self.facts.get(n.file)
        if ff is None or n.macro:
            return False
        m = re.search(r"EXPORT_SYMBOL\w*\s*\(\s*%s\s*\)" % re.escape(n.name), ff.text)
        if not m:
            return False
        line = ff.line_of(m.start())
        n.exported = (n.file, line)
        if self.tree.kind == "kernel":
            return False                # every caller of a kernel tree's export is in the tree
        n.entries.append((E.UNKNOWN, f"exported symbol {n.name}() (callers outside the tree)", n.file, line,
                          "exported"))
        return True

    def _caller_files(self, n):
        if n.static and n.file.endswith(".c"):
            return [n.file]
        files = [f for f in self.pre.files_with([n.name]) if f.endswith((".c", ".h"))]
        return [f for f in files if f == n.file or f in self.facts or self._may_use(f, n.name)]

    def text_facts(self, rel):
        """rel's parsed facts, or (for a file not parsed) its text alone, read once: a header
        is asked about many names, and its macro table is costly. OSError if unreadable."""
        ff = self.facts.get(rel) or self._mention_facts.get(rel)
        if ff is None:
            ff = self._mention_facts[rel] = FileFacts(rel, self._lines(rel), [])
        return ff

    def _may_use(self, rel, name):
        """False when every mention of `name` in `rel` is a prototype or a comment: such files
        (mostly headers) need no parsing. An export is a use: made in another file than the
        definition, it still hands the function to other modules."""
        try:
            ff = self.text_facts(rel)
        except OSError:
            return True
        for off, line, kind in textual_mentions(ff, name):
            what, _d = classify_mention(ff, name, off, line, kind, {})
            if what not in ("decl", "not-function"):
                return True
        return False

    def _expand(self, n, files):
        n.expanded = True
        new = []
        found_any = False
        ff0 = self.facts.get(n.file)
        if ff0 is None or (not n.macro and not n.textual and n.name not in ff0.defs):
            reason = ff0.failed if ff0 and ff0.failed else "definition not parsed"
            n.entries.append((E.UNKNOWN, f"{n.name}(): {reason}", n.file, n.line, "unparsed"))
        for cf in files:
            ff = self.facts.get(cf)
            if ff is None:
                # A caller file that was not loaded is missing evidence, not an absent caller.
                n.entries.append((E.UNKNOWN, f"{cf} mentions {n.name}() but was not analysed", cf, None,
                                  "unparsed"))
                continue
            if cf != n.file and n.name in ff.defs and ff.defs[n.name]["static"]:
                continue                        # a different static function of the same name
            if self._own_definition(cf, n, files):
                continue                        # another driver's function of the same name
            if cf != n.file and n.name in ff.defs and not n.static:
                pass
            if ff.failed:
                if re.search(r"\b%s\b" % re.escape(n.name), ff.text):
                    n.entries.append((E.UNKNOWN, f"{cf} mentions {n.name}() but could not be parsed ({ff.failed})",
                                      cf, None, "unparsed"))
                continue
            seen_lines = {}
            for c in ff.calls.values():
                if c.callee == n.name and c.func and c.func != "something_else":
                    seen_lines.setdefault(c.line, []).append(c)
                    if c.func == n.name and cf == n.file:
                        found_any = True
                        continue                # direct recursion: adds nothing
                    caller = self.node(cf, c.func)
                    e = Edge(caller, n, cf, c.line)
                    e.config = ctext.config_at(ff.lines, c.line)
                    e._call = c
                    self._add_edge(e)
                    found_any = True
                    if not caller.expanded:
                        new.append(caller)
            for off, line, kind in textual_mentions(ff, n.name):
                if kind == "call" and line in seen_lines:
                    continue
                what, detail = classify_mention(ff, n.name, off, line, kind, ff.defs)
                if what in ("def", "decl", "not-function"):
                    continue
                if what == "macro-call" and detail == n.name and n.macro:
                    continue                    # the macro's own #define line
                found_any = True
                if what == "export":
                    n.exported = (cf, line)
                    if self.tree.kind != "kernel":
                        n.entries.append((E.UNKNOWN, f"exported symbol {n.name}() (callers outside the tree)",
                                          cf, line, "exported"))
                elif what == "macro-call":
                    m = self.node(cf, detail, macro=True)
                    e = Edge(m, n, cf, line)
                    e._call = None
                    self._add_edge(e)
                    if not m.expanded:
                        new.append(m)
                elif what == "unseen-call":
                    caller = self.textual_caller(ff, line)
                    if caller is None or caller.key == n.key:
                        n.entries.append((E.UNKNOWN, f"call of {n.name}() that spatch could not parse", cf, line,
                                          "unparsed"))
                        continue
                    self.add_textual_edge(caller, n, cf, line)
                    if not caller.expanded:
                        new.append(caller)
                else:
                    table = tables.stored_in(ff.text, off) if _untyped(what, detail) else None
                    if table is not None:
                        new.extend(self._table_callers(n, ff, table, line))
                    else:
                        new.extend(self._registration(n, ff, what, detail, line, (off, len(n.name))))
        if n.exported and self.tree.kind == "kernel" and not self.in_edges.get(n.key) and not n.entries:
            n.entries.append((E.UNKNOWN, f"exported symbol {n.name}() has no caller in the tree (only modules "
                              "outside it can call it)", n.exported[0], n.exported[1], "exported"))
        elif not found_any and not n.entries:
            if (n.macro or self.tree.kind != "kernel" and not self._included_c(n.file)) \
                    and not self._may_be_pasted(n.name):
                # Searched for in the whole tree and used nowhere (a compat alias, a vendor's
                # DBG_MEM_ALLOC variant, say): a macro cannot be reached through a pointer,
                # so it is on no path at all. A module directory's macro is its own: the
                # kernel does not include a module's headers. So is a module directory's
                # function that no file of it names (nor its assembly, nor a paste): not
                # exported, it is linked to nothing outside (vendor drivers keep many).
                n.unused = True
            else:
                self._sysfs_or_orphan(n)
        if n.exported and self.tree.kind != "kernel":
            return []                           # unknown callers anyway: no need to look further up
        return new

    def _included_c(self, rel):
        """Is rel a .c file that another file #includes (its static functions are that
        file's too, where this walk does not look for their callers)?"""
        return rel.endswith(".c") and bool(self.pre.files_including([os.path.basename(rel)]))

    def _table_callers(self, n, ff, table, line):
        """The callers of n through the static table it is stored in (tables.py): an edge
        from each function calling through the member, or UNKNOWN naming the escape."""
        if not ff.rel.endswith(".c"):
            offsets, why = None, "a static table in a header has a copy in each file that includes it"
        elif self._included_c(ff.rel):
            offsets, why = None, f"{os.path.basename(ff.rel)} is #included by other files, which see the table"
        else:
            offsets, why = tables.calls(ff, table)
        if offsets is not None and len(offsets) > member_calls.MAX_MEMBER_CALLS:
            offsets, why = None, f"{len(offsets)} calls through {table.var}[].{table.field}: too many to follow"
        if offsets is None:
            n.entries.append((E.UNKNOWN, f"stored in {table.var}[].{table.field}: {why}", ff.rel, line, "pointer"))
            return []
        found = []
        for off in offsets:
            at = ff.line_of(off)
            c = ff.calls.get((at, off - ff.offset(at, 0)))
            if c is not None and c.callee == "." + table.field and c.func and c.func != "something_else":
                found.append((self.node(ff.rel, c.func), c, at))
                continue
            caller = self.textual_caller(ff, at) if c is None else None    # in a function spatch dropped
            if caller is None:
                n.entries.append((E.UNKNOWN, f"call through {table.var}[].{table.field} that spatch could not "
                                  f"parse ({ff.rel}:{at})", ff.rel, at, "unparsed"))
                return []
            found.append((caller, None, at))
        found = [f for f in found if f[0].key != n.key]         # a handler calling its own table
        if not found:
            n.entries.append((E.UNKNOWN, f"stored in {table.var}[].{table.field}: called only by itself",
                              ff.rel, line, "pointer"))
            return []
        for caller, c, at in found:
            e = self.add_call_edge(caller, n, ff.rel, c) if c else self.add_textual_edge(caller, n, ff.rel, at)
            e.via = ("->" + table.field, ff.rel, line, f"the static table {table.var}[], every use of which is in this file")
        return [caller for caller, _c, _at in found if not caller.expanded]

    def textual_caller(self, ff, line):
        """The node of the function around an unparsed call at ff:line, when the text
        settles it and its body opens no region (textual.py); else None."""
        tf = textual.enclosing(ff, line)
        if tf is None:
            return None
        if _GUARD.search(tf.body) or _KMAP.search(tf.body):
            return None
        spans = textual.closed_regions(tf, PRIMITIVES) if PRIMITIVES.search(tf.body) else []
        if spans is None or any(a <= line <= b for a, b in spans):
            return None
        if textual.loop_headers(tf.body) or self._may_call_opener(ff, set(CALL.findall(tf.body)) - KEYWORDS):
            return None
        caller = self.node(ff.rel, tf.name)
        caller.closes_own = caller.closes_own or bool(spans)
        if tf.name not in ff.defs:
            caller.textual = True
            caller.static = tf.static
            caller.line = caller.line or tf.line
            caller.params = caller.params or tf.params
        return caller

    MAX_OPENER_LEVELS = 3

    def _may_call_opener(self, ff, called):
        """Might one of the functions or macros `called` from ff open or close a region, as
        far as the text shows? Visible definitions as for a parsed caller (_helper_visible):
        in ff itself (any name), or in its driver directory for a lock-helper name; a name
        defined nowhere near is the kernel's (atomic_inc()), as in parsed code. A body with
        a region primitive may; the calls in it are followed MAX_OPENER_LEVELS deep, and a
        definition found below that may."""
        roots, dirs = (_driver_root(ff.rel, self.tree.kind) + "/",), {os.path.dirname(ff.rel)}
        seen = set()
        level = called
        for depth in range(self.MAX_OPENER_LEVELS + 1):
            level = {c for c in level if c not in seen and c not in PRIMITIVE_NAMES}
            seen |= level
            level = {c for c in level if not _leaves_regions_alone(ff, c)}
            if not level:
                return False
            bodies = _definition_bodies(ff.text, level)
            named = sorted(c for c in level if HELPER_NAME.search(c))
            for f in (self._near_files_with(named, roots, dirs) if named else []):
                if f == ff.rel or not f.endswith((".c", ".h")):
                    continue
                try:
                    text = self.text_facts(f).text
                except OSError:
                    return True
                bodies += _definition_bodies(text, [c for c in named if c in text])
            if any(_names_region_primitive(b) for b in bodies):
                return True
            if depth == self.MAX_OPENER_LEVELS and any(bodies):
                return True                     # definitions deeper than followed
            level = {c for b in bodies for c in CALL.findall(b)}
        return False

    def _own_definition(self, cf, n, files):
        """Two modules may each define a non-static function of one name: in a kernel tree
        two drivers (the staging rtl8723bs and r8188eu share dozens), in a module directory
        several drivers side by side (a vendor's USB, SDIO and PCIe variants, each with its
        own Kbuild makefile). A call from a module that defines the name itself means its
        own definition, not n's. Within one module every definition counts (one per build
        configuration)."""
        if n.static:
            return False
        root = self._module_of(cf)
        if root == self._module_of(n.file):
            return False
        return any(f != n.file and f in self.facts and n.name in self.facts[f].defs
                   and not self.facts[f].defs[n.name]["static"] and self._module_of(f) == root for f in files)

    def _module_of(self, rel):
        """The module a file belongs to: its driver directory in a kernel tree; in a module
        directory the nearest directory above it whose Makefile or Kbuild builds objects
        (`obj-m += ...`, `obj-$(CONFIG_X) := ...`), else the whole directory."""
        if self.tree.kind == "kernel":
            return _driver_root(rel, self.tree.kind)
        return self._module_dir(os.path.dirname(rel))

    def _module_dir(self, d):
        """The module directory d belongs to (d itself, a directory above it, or "")."""
        if d not in self._modules:
            self._modules[d] = d if not d or _builds_objects(os.path.join(self.root, d)) else \
                self._module_dir(os.path.dirname(d))
        return self._modules[d]

    def add_call_edge(self, caller, callee, rel, c):
        """An edge for the call record c (in file rel) of `callee` by `caller`."""
        e = Edge(caller, callee, rel, c.line)
        e.config = ctext.config_at(self.facts[rel].lines, c.line)
        e._call = c
        self._add_edge(e)
        return e

    def add_textual_edge(self, caller, callee, rel, line):
        """An edge for a call that textual_caller() read from the text."""
        e = Edge(caller, callee, rel, line)
        e.config = ctext.config_at(self.text_facts(rel).lines, line)
        e._call = None
        e.textual = True
        self._add_edge(e)
        return e

    def _add_edge(self, e):
        self.edges.append(e)
        self.in_edges.setdefault(e.callee.key, []).append(e)

    def _registration(self, n, ff, what, detail, line, mention=None):
        """Adds the entry (or the pending lookup) of a mention of n's address at ff:line
        (mention: its offset and length there); returns the caller nodes it found (a wrapper
        that calls the address it is passed, the calls through a static variable)."""
        cf = ff.rel
        if what == "init-pos":
            # `{ "smp", smp_show }`: the member is the one at that position of the struct.
            stype, index = detail
            if stype.startswith("typedef "):
                alias = stype[len("typedef "):]
                if alias in E.HANDLER_ARRAYS:
                    n.entries.append(self._handler_array(ff, alias, line))
                    return []
                tag = member_calls.typedef_tag(self, alias)
                stype = tag or stype
            else:
                tag = stype
            if index is None:
                n.entries.append((E.UNKNOWN, f"address taken: stored by index in an array of {stype}", cf, line,
                                  "pointer"))
                return []
            field = member_calls.member_at(self, tag, index) if tag else None
            if field is None:
                n.entries.append((E.UNKNOWN, f"address taken: element {index + 1} of a positional initialiser "
                                  f"of {stype} (no struct whose member order is known)", cf, line, "pointer"))
                return []
            what, detail = "init", (stype, field)
        if what == "init":
            stype, field = detail
            if stype and stype.startswith("typedef "):
                # `static bcmsdh_driver_t x = { .attach = fn }` (or "typedef T>member", nested)
                head, sep, rest = stype[len("typedef "):].partition(">")
                tag = member_calls.typedef_tag(self, head)
                stype = tag + sep + rest if tag else None
            if stype and ">" in stype:
                stype = member_calls.nested_type(self, stype)
            ent = self.table_context(n, ff, stype, field, line)
            if ent is None:
                # The subsystem's kernel-doc may say; looked up once the round is expanded.
                self._pending_docs.append((n, stype, field, cf, line))
                return []
            n.entries.append((ent[0], ent[1] if ent[0] != E.UNKNOWN else ent[1], cf, line, "registration"))
        elif what == "assign":
            field, lhs = detail
            if field == "function" and "timer" in lhs:
                ent = (E.ATOMIC, f"timer callback ({lhs.strip()} = {n.name})")
            elif field in E.FIELD_ONLY:
                ent = E.FIELD_ONLY[field]
            else:
                # Its callers are the calls through that member, when they can all be found.
                self._pending_members.append((n, None, field, cf, line, lhs.strip()))
                return []
            n.entries.append((ent[0], ent[1], cf, line, "registration"))
        elif what == "call-arg":
            callee, idx = detail
            if idx is None:
                n.entries.append((E.UNKNOWN, f"address passed to {callee}(): its position differs between "
                                  "the #if branches before it", cf, line, "registration"))
                return []
            if (callee, idx) in E.HANDLER_ARRAY_MACROS:
                n.entries.append(self._handler_array(ff, E.HANDLER_ARRAY_MACROS[(callee, idx)], line))
                return []
            ent = E.CALL_ARGS.get((callee, idx))
            if (callee, idx) in E.RUNTIME_PM_ARGS:
                ent = self._runtime_pm(n, ff, f"{callee}() runtime PM callback")
            if ent is None:
                ent = macro_args.registration(self._macro_definitions(ff, callee), idx)
            if ent is None and mention is not None:
                member = macro_args.element_member(self._macro_definitions(ff, callee), idx)
                stype = array_element_type(ff.text, call_around(ff.text, mention[0])[2]) if member else None
                if stype:
                    # `GEN_MLME_EXT_HANDLER(fn, cb)` in `struct rtw_cmd wlancmds[] = {`: `.cmd_hdl = fn`
                    return self._registration(n, ff, "init", (stype, member), line, mention)
            if ent is None:
                return self._forward(n, ff, callee, idx, line)
            n.entries.append((ent[0], ent[1], cf, line, "registration"))
        elif what == "macro-ref":
            n.entries.append((E.UNKNOWN, f"named in macro {detail} (unresolved macro)", cf, line, "macro"))
        else:
            got = static_vars.store(self, n, ff, mention, line) if mention else None
            if got is not None:
                return got
            n.entries.append((E.UNKNOWN, f"address taken: `{detail}`", cf, line, "pointer"))
        return []

    def _forward(self, n, ff, callee, idx, line):
        """n's address passed as argument idx of `callee`, which may be a function of the
        driver's own (forwarding.py): looked at once the round's names are searched for
        (forwarding.resolve), the way the callers are found. Returns no node now."""
        self._pending_forwards.append((n, ff, callee, idx, line, tuple(self._forwarding)))
        return []

    def _handler_array(self, ff, typename, line):
        """The entry of a function stored in an array of `typename` (E.HANDLER_ARRAYS) at
        ff:line: the core's context when the array is static and its name is used only to
        hook it into a struct initialiser (`.standard = handlers,`) or in sizeof/ARRAY_SIZE;
        unknown when the driver reads it anywhere else (it may call the entries itself)."""
        text = ff.text
        off = ff.offset(line, 0)
        heads = list(re.finditer(r"\b%s\s+(\w+)\s*\[[^\]]*\]\s*=\s*\{" % re.escape(typename), text[:off]))
        ctx, fact = E.HANDLER_ARRAYS[typename]
        if not heads:
            return (E.UNKNOWN, f"address taken: element of a {typename} array not found", ff.rel, line, "pointer")
        name = heads[-1].group(1)
        decl = re.split(r"[;{}]", text[max(0, heads[-1].start() - 120):heads[-1].start()])[-1]
        if not re.search(r"\bstatic\b", decl):
            return (E.UNKNOWN, f"{typename} array {name}[] is not static: other files may read it", ff.rel, line,
                    "pointer")
        for m in re.finditer(r"\b%s\b" % re.escape(name), text):
            if m.start() == heads[-1].start(1):
                continue
            before = text[max(0, m.start() - 80):m.start()]
            after = text[m.end():m.end() + 3].lstrip()
            if re.search(r"\.\s*\w+\s*=\s*&?\s*$", before) and after[:1] in (",", "}"):
                continue                        # `.standard = handlers,`
            if re.search(r"\b(sizeof|ARRAY_SIZE)\s*\(\s*$", before):
                continue
            at = ff.line_of(m.start())
            return (E.UNKNOWN, f"{typename} array {name}[] used at {ff.rel}:{at} (its entries may be called "
                               "from there)", ff.rel, line, "pointer")
        return (ctx, f"{fact}: {name}[]", ff.rel, line, "registration")

    def _macro_definitions(self, ff, name):
        """[(name, params, body)] of the #defines of `name` that ff can see as a driver's
        own: in ff itself, else in the headers of its driver directory; [] when none."""
        own = [d[2] for d in ctext.defines(ff.lines) if d[2][0] == name]
        if own:
            return own
        key = (name, _driver_root(ff.rel, self.tree.kind), os.path.dirname(ff.rel))
        if key not in self._macro_defs:
            roots, dirs = (key[1] + "/",), {key[2]}
            out = []
            # Most names asked about are the kernel's functions (dev_err(), memcpy()): only a
            # header near the caller that #defines the name is parsed for its table.
            for f in sorted(self.pre.function_macro_headers().get(name, ())):
                if not _near(f, roots, dirs) or (self.tree.kind == "kernel" and f.startswith(("include/", "arch/"))):
                    continue
                try:
                    lines = self._lines(f)
                except OSError:
                    continue
                out += [d[2] for d in ctext.defines(lines) if d[2][0] == name]
            self._macro_defs[key] = out
        return self._macro_defs[key]

    def table_context(self, n, ff, stype, field, line):
        """The context the tables give a function stored into member `field` of struct
        `stype` (None: not known), by an initialiser or by an assignment whose struct type
        the text settles (member_calls.resolve). Runtime PM, notifier and PCM callbacks are
        settled here, before any kernel-doc is read."""
        cf = ff.rel
        if stype and stype.startswith(members.UNTAGGED):
            return None                 # the tables know the kernel's structs, all tagged
        ent = E.member_context(stype, field)
        if stype and stype.endswith("_driver") and field in E.DRIVER_SLEEP_FIELDS \
                and not any(w in stype for w in E.DRIVER_ATOMIC_TYPES):
            ent = (E.SLEEPABLE, f"{stype}.{field} (driver model callback, process context)")
        elif stype == "dev_pm_ops" and field in E.PM_SLEEP_FIELDS:
            ent = (E.SLEEPABLE, f"dev_pm_ops.{field} (system sleep callback)")
        elif field in E.RUNTIME_PM_FIELDS and stype in ("dev_pm_ops", None):
            ent = self._runtime_pm(n, ff, f"dev_pm_ops.{field}")
        elif stype == "notifier_block" and field == "notifier_call":
            ent = self._notifier(ff, line)
        elif stype == "snd_pcm_ops" and field in ("trigger", "pointer") and not self._pcm_nonatomic(cf):
            # sound/core/pcm_native.c: snd_pcm_stream_lock_irq() takes the stream's
            # spinlock with IRQs off unless pcm->nonatomic is set.
            ent = (E.ATOMIC, f"PCM {field}: ALSA calls it under the PCM stream lock with IRQs off "
                             "(spin_lock_irq(); the driver never sets ->nonatomic)")
        elif ent is None and field in E.FIELD_ONLY:
            ent = E.FIELD_ONLY[field]
        return ent

    def _resolve_docs(self):
        """Callbacks the tables do not know: the context their kernel-doc states, else unknown.
        One search of the tree for all of the round's struct types."""
        pending, self._pending_docs = self._pending_docs, []
        self.docs.prefetch({stype for _n, stype, _f, _cf, _l in pending})
        for n, stype, field, cf, line in pending:
            doc = self.doc_context(stype, field, cf)
            if doc:
                n.entries.append((doc[0], doc[1], cf, line, "documented"))
            else:
                self._pending_members.append((n, stype, field, cf, line, None))

    def doc_context(self, stype, field, cf):
        """(context, fact) that the kernel-doc of stype.field states, as seen from the file
        cf (include/ and its driver directory; a module directory sees itself), or None."""
        root = _driver_root(cf, self.tree.kind)
        doc = self.docs.lookup(stype, field, ["include", root] if root else ["."])
        return (doc[0], f"callback {doc[1]} ({doc[2]}:{doc[3]})") if doc else None

    def _pcm_nonatomic(self, rel):
        """Does the driver (its directory, conservatively) ever mention ->nonatomic?"""
        return bool(self._driver_files_with(rel, "nonatomic"))

    def _runtime_pm(self, n, ff, what):
        safe = self._irq_safe_dir(ff.rel)
        if safe:
            return (E.UNKNOWN if False else E.ATOMIC,
                    f"{what}: the driver marks its device pm_runtime_irq_safe() ({safe[0]}), "
                    f"so runtime PM may call it with IRQs off") if False else \
                ("both", f"{what} of a device marked pm_runtime_irq_safe() in {safe[0]}: called with "
                          f"IRQs off (pm_runtime_*_sync in atomic context) or from process context")
        return (E.SLEEPABLE, f"{what} (runtime PM callback; no pm_runtime_irq_safe() in the driver)")

    def _notifier(self, ff, line):
        text = ff.text
        off = ff.offset(line, 0)
        m = None
        for m in re.finditer(r"struct\s+notifier_block\s+(\w+)\s*=\s*\{", text[:off + 1]):
            pass
        if not m:
            return (E.UNKNOWN, "notifier callback of unknown chain")
        var = m.group(1)
        for r in re.finditer(r"\b(\w+)\s*\(([^;]*)&\s*%s\b" % re.escape(var), text):
            reg, args = r.group(1), r.group(2)
            if any(p in args for p in E.PANIC_CHAINS):
                return (E.UNKNOWN, f"panic notifier ({reg}(&panic_notifier_list, &{var})): panic path")
            if reg in E.NOTIFIER_REG:
                ctx, what = E.NOTIFIER_REG[reg]
                return (ctx, f"{what} ({reg}(&{var}))")
        return (E.UNKNOWN, f"notifier {var}: registration chain not known")

    def _sysfs_or_orphan(self, n):
        m = re.match(r"^(\w+)_(show|store)$", n.name)
        ff = self.facts.get(n.file)
        if m and ff is not None:
            if re.search(r"\b\w*ATTR\w*\s*\(\s*%s\s*[,)]" % re.escape(m.group(1)), ff.text):
                n.entries.append((E.SLEEPABLE, f"sysfs {m.group(2)} ({m.group(1)} attribute)", n.file, n.line,
                                  "registration"))
                return
        n.entries.append((E.UNKNOWN, f"no caller or registration of {n.name}() found", n.file, n.line, "orphan"))

    def _find_helper_defs(self):
        """Load the files defining driver lock helpers the graph's functions call. Each calling
        file is searched for from its own driver directory (_helper_visible), so
        what a file's calls mean does not depend on the other files of the scan."""
        graph_funcs = {(n.file, n.name) for n in self.nodes.values()}
        defs = {}
        for ff in self.facts.values():
            for name, d in ff.defs.items():
                defs.setdefault(name, []).append((ff.rel, d["static"]))
        cands = {}                       # helper name -> driver roots to search
        for ff in self.facts.values():
            for c in ff.calls.values():
                if (ff.rel, c.func) not in graph_funcs or not HELPER_NAME.search(c.callee) \
                        or c.callee in PRIMITIVE_NAMES:
                    continue
                if any(self._helper_visible(ff.rel, f, st, c.callee) for f, st in defs.get(c.callee, [])):
                    continue
                cands.setdefault(c.callee, set()).add(ff.rel)
        if not cands:
            return
        # Only where a definition could be visible to one of its callers (_helper_visible),
        # and per file only the names it mentions whose callers could see it there.
        self.pre.files_with(sorted(cands))
        per_file = {}
        for name, users in cands.items():
            roots = tuple(sorted({_driver_root(u, self.tree.kind) + "/" for u in users}))
            dirs = {os.path.dirname(u) for u in users}
            for f in self.pre.files_with([name]):
                # _helper_visible(u, f, False, name) for some user u, all users at once
                if f.endswith((".c", ".h")) and f not in self.facts and _near(f, roots, dirs):
                    per_file.setdefault(f, set()).add(name)
        keep = []
        for f in sorted(per_file):
            try:
                with open(os.path.join(self.root, f), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            if _defines_opener(text, per_file[f]):
                keep.append(f)
        self.load(keep)

    def _recompute_edges(self):
        for e in self.edges:
            c = getattr(e, "_call", None)
            if c is None:
                continue
            ff = self.facts[e.file]
            self._apply_call(e, c, ff)

    def call_context(self, c, ff):
        """(atomic, inherit, unknown, region_fact) for one call record."""
        atomic = bool(c.regions)
        inherit = not c.regions or c.entry or c.after_release or all(f == TRYLOCK for f, _ in c.regions)
        fact = None
        if c.regions:
            fam, at = sorted(c.regions, key=lambda r: -r[1])[0]
            acq = [x.callee for x in ff.calls.values() if x.line == at and x.func == c.func]
            name = next((a for a in acq if a not in ("if", "unlikely", "likely")), fam)
            if fam.startswith("guard("):
                name = fam
            fact = (at, f"{name}() at line {at} (region still open here)")
        unknown = None
        rel_at = ff.releases.get(c.func)
        if rel_at is not None and c.line >= rel_at and c.func not in ff.acquires:
            unknown = f"called after {c.func}() releases its caller's lock (line {rel_at})"
        return atomic, inherit, unknown, fact

    def _apply_call(self, e, c, ff):
        e.atomic, e.inherit, e.unknown, e.region_fact = self.call_context(c, ff)

    # ------------------------------------------------------------ propagation
    def propagate(self):
        """ctx[node key] = {kind: witness}; witness = ("entry", entry) | ("edge", edge, how)."""
        self.ctx = self.global_ctx = self._propagate(self.nodes, self.edges, {})
        self._site_ctx = {}
        return self.ctx

    def view(self, key):
        """Make ctx (and so chain()) answer as a scan of the site function `key` alone would."""
        self.ctx = self.site_ctx(key) if key in self.nodes else self.global_ctx
        return self.ctx

    def _propagate(self, nodes, edges, cut):
        """The fixpoint over `nodes` and `edges`. `cut` {key: entry}: nodes whose callers a
        run that started at one site would not have followed; their entry replaces their own.
        Missing evidence is UNKNOWN, never nothing: a node whose callers were not followed, or
        that ends with no context at all (only a cycle of callers, callers not found), is
        unknown, so no proof rests on it."""
        ctx = {k: {} for k in nodes}
        for k, n in nodes.items():
            ents = [cut[k]] if k in cut else list(n.entries)
            if not n.expanded and k not in cut:
                ents.append((E.UNKNOWN, f"callers of {n.name}() not followed", n.file, n.line, "limit"))
            for ent in ents:
                kinds = [E.ATOMIC, E.SLEEPABLE] if ent[0] == "both" else [ent[0]]
                for kind in kinds:
                    ctx[k].setdefault(kind, ("entry", ent))
        dead = self._on_no_path(nodes, edges, cut)
        for e in edges:
            if e.callee.key in cut or e.caller.key in dead:
                continue                    # a caller on no path never holds a region there
            if e.atomic:
                ctx[e.callee.key].setdefault(E.ATOMIC, ("edge", e, "region"))
            if e.unknown:
                ctx[e.callee.key].setdefault(E.UNKNOWN, ("edge", e, "after-release"))
        inherit = [e for e in edges if e.inherit and e.callee.key not in cut]
        self._fixpoint(ctx, inherit)
        empty = [k for k in sorted(ctx) if not ctx[k] and k not in dead]
        for k in empty:
            n = nodes[k]
            ctx[k][E.UNKNOWN] = ("entry", (E.UNKNOWN, f"no caller chain from an entry point reaches "
                                           f"{n.name}() (only a cycle of callers, or callers not found)",
                                           n.file, n.line, "orphan"))
        if empty:
            self._fixpoint(ctx, inherit)
        return ctx

    @staticmethod
    def _on_no_path(nodes, edges, cut):
        """The nodes on no path: a macro used nowhere, and what only such nodes call (a
        vendor's debug alias that an unused alias names, a helper only they expand to)."""
        callers = {}
        for e in edges:
            callers.setdefault(e.callee.key, set()).add(e.caller.key)
        dead = {k for k, n in nodes.items() if n.unused}
        changed = True
        while changed:
            changed = False
            for k, n in nodes.items():
                if k in dead or k in cut or n.entries or not n.expanded or not callers.get(k):
                    continue
                if callers[k] <= dead:
                    dead.add(k)
                    changed = True
        return dead

    @staticmethod
    def _fixpoint(ctx, inherit):
        changed = True
        while changed:
            changed = False
            for e in inherit:
                src, dst = ctx[e.caller.key], ctx[e.callee.key]
                for kind in src:
                    if kind not in dst:
                        dst[kind] = ("edge", e, "inherit")
                        changed = True

    def exported_above(self, key):
        """Exported functions on the paths to `key` whose callers were followed because the
        tree is a whole kernel tree: [(name, file, line)], within the levels a scan of this
        site alone walks (not wherever other sites took the graph)."""
        if self.tree.kind != "kernel":
            return []
        return sorted((self.nodes[k].name, *self.nodes[k].exported) for k in self._above(key)
                      if self.nodes[k].exported)

    def site_ctx(self, key):
        """The context as a scan that started at this one site would see it, so that a site's
        class never depends on the other sites of the scan. The graph grows from all sites at
        once, so a caller near another site is expanded although it lies more than MAX_ROUNDS
        levels above this one; such a caller is cut here exactly as a run of its own would cut
        it. When every caller of the site lies within the limit, the whole-graph context is
        that context already."""
        if key in self._site_ctx:
            return self._site_ctx[key]
        dist = self._above(key)
        deep = MAX_ROUNDS in dist.values()
        if len(dist) > MAX_SITE_NODES:
            # Judged on its own graph, not cut wherever the whole scan happened to stop.
            n = self.nodes[key]
            ent = (E.UNKNOWN, f"more than {MAX_SITE_NODES} functions above {n.name}(): call graph too large "
                              "to follow", n.file, n.line, "limit")
            ctx = dict(self.global_ctx)
            ctx[key] = {E.UNKNOWN: ("entry", ent)}
        elif not deep:
            ctx = self.global_ctx
        else:
            nodes = {k: self.nodes[k] for k in dist}
            edges = [e for e in self.edges if e.callee.key in dist and dist[e.callee.key] < MAX_ROUNDS]
            cut = {k: (E.UNKNOWN, f"call chain longer than {MAX_ROUNDS} levels: callers of "
                                  f"{self.nodes[k].name}() not followed", self.nodes[k].file,
                       self.nodes[k].line, "limit")
                   for k, d in dist.items() if d == MAX_ROUNDS}
            ctx = self._propagate(nodes, edges, cut)
        self._site_ctx[key] = ctx
        return ctx

    def chain(self, key, kind, limit=30):
        """Evidence from the entry (or blocking fact) down to the function `key`, for `kind`."""
        out = []
        seen = set()
        while limit > 0 and key not in seen:
            seen.add(key)
            limit -= 1
            w = self.ctx[key].get(kind)
            if w is None:
                break
            if w[0] == "entry":
                ctxk, fact, f, line, k = w[1]
                n = self.nodes[key]
                out.append({"file": f, "line": line or n.line or 1, "function": n.name,
                            "fact": f"{n.name}(): {fact}{head_note(n) if not out else ''}",
                            "kind": k if kind != E.UNKNOWN else k})
                break
            e, how = w[1], w[2]
            if how == "region":
                out.append({"file": e.file, "line": e.line, "function": e.caller.name,
                            "fact": f"{call_fact(e)} with the region open", "kind": "call"})
                out.append({"file": e.file, "line": e.region_fact[0], "function": e.caller.name,
                            "fact": f"{e.caller.name}() takes {e.region_fact[1].split(' at line')[0]}", "kind": "region"})
                break
            if how == "after-release":
                out.append({"file": e.file, "line": e.line, "function": e.caller.name,
                            "fact": e.unknown, "kind": "unknown"})
                break
            out.append({"file": e.file, "line": e.line, "function": e.caller.name,
                        "fact": call_fact(e) + (f" [under #if {' && '.join(e.config)}]" if e.config else ""),
                        "kind": "textual" if e.textual else "call"})
            key = e.caller.key
        out.reverse()
        return out
