"""Classes (DESIGN 4) from the propagated contexts; `fix` per docs/fix-strategies.md.

Entry point: run(tree, doc, scope, store, fps, pre, jobs) after findings.build()."""

import re
import time

from . import entries as E
from . import guards, livebug
from .graph import Graph
from ..findings import NO_SWAP

CORE_DIRS = ("kernel/", "mm/", "lib/", "arch/", "crypto/")
DEBUG_CONFIG = re.compile(r"CONFIG_(LOCKDEP|PROVE_\w+|DEBUG_\w+|\w+_DEBUG\w*|LOCK_STAT|KASAN\w*|KCSAN\w*|"
                          r"DEBUG_ATOMIC_SLEEP|PREEMPT_COUNT)\b")
SLEEP_INTENT_FORMS = {"gfp-select", "sleep-guard", "delay-select"}
# Predicates whose value, in a proven sleepable (process, nothing held) context, is fixed:
# every member of the family answers "may sleep" there.
ATOMIC_MEANS_TRUE = {"in_atomic", "drm_can_sleep", "irqs_disabled", "preemptible", "in_task"}
LAST_TIMING = {}
LAST_FILES = []        # the files the last classification parsed (make bench's parse count)


def _core(rec):
    return rec["file"].startswith(CORE_DIRS)


def _gfp_of(rec, atomic):
    d = rec.get("form_detail") or {}
    br = d.get("branches") or []
    awt = d.get("true_means") != "may-sleep"
    if len(br) == 2:
        cond_true, cond_false = br[0].get("gfp") or [], br[1].get("gfp") or []
        want = cond_true if (atomic == awt) else cond_false
        if len(want) == 1:
            return want[0]
    m = re.findall(r"\b(?:__)?GFP_[A-Z_]+\b", "\n".join(rec["snippet"]["lines"]))
    if atomic:
        return "GFP_ATOMIC" if "GFP_ATOMIC" in m else ("GFP_NOWAIT" if "GFP_NOWAIT" in m else None)
    for g in ("GFP_NOIO", "GFP_NOFS", "GFP_KERNEL"):
        if g in m:
            return g
    return None


def _site_call(ff, rec):
    best = None
    for c in ff.calls.values():
        if c.line == rec["line"] and c.callee == rec["called"]:
            if c.col == rec["col"]:
                return c
            best = best or c
    return best


def _base(rec, cls, conf, reason, evidence, fix=None):
    # One line of text: reasons quote source (initialisers, conditions) with tabs and newlines.
    reason = " ".join(reason.split()) if reason else reason
    rec["class"], rec["confidence"], rec["reason"], rec["evidence"], rec["fix"] = cls, conf, reason, evidence, fix


def _src(g, ev):
    ff = g.facts.get(ev.get("file"))
    if ff is None or not ev.get("line"):
        return ev
    i = ev["line"] - 1
    lo = max(0, i - 2)
    ev["source"] = {"start": lo + 1, "lines": [l.rstrip("\n") for l in ff.lines[lo:i + 3]]}
    return ev


def classify_one(g, rec, scope_all):
    if scope_all and _core(rec):
        return _base(rec, "core-allowed", "high", "core code (kernel/, mm/, lib/, arch/, crypto/): "
                     "in_atomic() and its family are for core code", [])
    site_ev = {"file": rec["file"], "line": rec["line"], "function": rec["function"] or rec["macro"],
               "fact": f"{rec['called']}() tested here ({rec['form']})", "kind": "site"}
    if "system_state" in rec["expression"]:
        # The seed's i2c rewrite (and any like it): a defined question, shutdown-time polling.
        return _base(rec, "well-defined-condition", "high", "already a defined condition on system_state "
                     "(late shutdown polling); nothing to rewrite", [site_ev])
    if rec["form"] == "wrapper":
        return _base(rec, "manual-review", "high", f"wrapper {rec['function'] or rec['macro']}(): its callers "
                     "are findings of their own, classified one by one; remove it once they are fixed", [site_ev])
    if rec["macro"] or not rec["function"]:
        cfg = " && ".join(rec["config"])
        if rec["form"] == "assertion":
            return _base(rec, "manual-review", "high",
                         f"assertion macro {rec['macro']} checks that the context IS atomic"
                         + (f" (debug config only: {cfg})" if cfg else "") + "; no lockdep equivalent states it",
                         [site_ev])
        return _base(rec, "manual-review", "medium", f"use inside macro {rec['macro']}: unresolved macro", [site_ev])
    cfg = " && ".join(rec["config"])
    if cfg and DEBUG_CONFIG.search(cfg):
        return _base(rec, "manual-review", "high", f"debug-only code (needs {cfg})", [site_ev])
    if rec["predicate"] == "in_nmi":
        return _base(rec, "manual-review", "high", "in_nmi() asks a different, defined question", [site_ev])
    same = _same_invariant(rec)
    if same:
        given = _guaranteed(g, rec, same)
        if given:
            # Issue 13: a swap that changes nothing a maintainer would want; the series lists
            # it instead of patching it.
            return _base(rec, "assertion", "high", NO_SWAP + "the kernel already guarantees it: "
                         + "; ".join(dict.fromkeys(e["fact"] for e in given)), given + [site_ev])
        once = _init_or_teardown_only(g, rec)
        if once:
            return _base(rec, "assertion", "high", NO_SWAP + "it runs only at init or teardown: "
                         + "; ".join(e["fact"] for e in once), once + [site_ev])
        return _base(rec, "assertion", "medium", None, [site_ev],
                     {"strategy": "assert-replace", "params": {"file": rec["file"], "function": rec["function"],
                                                               "line": rec["line"], "with": same}})
    key = (rec["file"], rec["function"])
    n = g.nodes.get(key)
    ff = g.facts.get(rec["file"])
    if n is None or ff is None:
        return _base(rec, "manual-review", "low", "function not analysed", [site_ev])
    if ff.failed:
        return _base(rec, "manual-review", "low", f"{rec['file']} could not be parsed: {ff.failed}", [site_ev])
    c = _site_call(ff, rec)
    if c is None:
        return _base(rec, "manual-review", "low", "the use was not seen by the fact rule (unparsed code)", [site_ev])
    atomic_here, inherit, unknown_here, fact = g.call_context(c, ff)
    kinds = {}
    if atomic_here:
        kinds[E.ATOMIC] = [{"file": rec["file"], "line": fact[0], "function": rec["function"],
                            "fact": f"{rec['function']}() takes {fact[1].split(' at line')[0]}", "kind": "region"}]
    if inherit:
        for k in g.ctx[key]:
            kinds.setdefault(k, g.chain(key, k))
    if unknown_here:
        kinds.setdefault(E.UNKNOWN, [{"file": rec["file"], "line": rec["line"], "function": rec["function"],
                                      "fact": unknown_here, "kind": "unknown"}])
    evidence = []
    for k in (E.UNKNOWN, E.ATOMIC, E.SLEEPABLE):
        for ev in kinds.get(k, []):
            ev = dict(ev, context=k)
            evidence.append(_src(g, ev))
    if len(kinds) == 1 and set(kinds) <= {E.ATOMIC, E.SLEEPABLE} and inherit and not atomic_here:
        evidence += [_src(g, ev) for ev in _other_callers(g, key, set(kinds).pop(), evidence)]
    if inherit:
        for name, f, line in g.exported_above(key)[:MAX_OTHER_CALLERS]:
            evidence.append(_src(g, {"file": f, "line": line, "function": name, "kind": "policy",
                                     "fact": f"{name}() is exported: all in-tree callers are followed "
                                             "(whole kernel tree); callers in out-of-tree modules are not "
                                             "seen"}))
    evidence.append(_src(g, dict(site_ev)))
    if E.UNKNOWN in kinds:
        block = kinds[E.UNKNOWN][0] if kinds[E.UNKNOWN] else {}
        reason = block.get("fact", "unknown caller")
        where = f" ({block['file']}:{block['line']})" if block.get("file") else ""
        return _base(rec, "manual-review", "medium", reason + where, evidence)
    if not kinds and n.unused:
        return _base(rec, "manual-review", "low", f"{rec['function']}() is never called: no file of the module "
                     "directory names it, and no paste can build its name (dead code: remove it, or leave it)",
                     evidence)
    if not kinds:
        return _base(rec, "manual-review", "low", f"no caller chain from an entry point reaches {rec['function']}() "
                     "(only a cycle of callers, or callers not found)", evidence)
    # Conflicting evidence: an atomic proof while the function itself sleeps unconditionally.
    if set(kinds) == {E.ATOMIC}:
        own = set()
        for b in (rec.get("form_detail") or {}).get("branches") or []:
            own |= set(b.get("sleeps") or [])
        # A sleep in a branch that a guess decides (this site's or another's, in either
        # guard of a lock-select pair) runs only when the guess says so: not unconditional.
        decided = guards.guarded_lines(ff, rec["function"])
        sleeps = [x for x in ff.calls.values() if x.func == rec["function"] and x.callee in E.SLEEP_EVIDENCE
                  and not x.regions and not (x.callee in own and 0 <= x.line - rec["line"] <= 12)
                  and not any(a <= x.line <= b for a, b in decided)]
        if sleeps:
            s = sleeps[0]
            return _base(rec, "manual-review", "medium",
                         f"conflicting evidence: every caller is atomic but {rec['function']}() calls "
                         f"{s.callee}() (line {s.line}): existing bug?", evidence)
    return _by_form(g, rec, set(kinds), evidence, n, ff)


MAX_OTHER_CALLERS = 8


def _live_bug(g, rec, scope_all):
    """livebug.find for a site in an analysed function (never from a crash or a guess)."""
    if not rec["function"] or rec["macro"] or (scope_all and _core(rec)) or rec["form"] == "wrapper":
        return None
    ff = g.facts.get(rec["file"])
    if (rec["file"], rec["function"]) not in g.nodes or ff is None or ff.failed:
        return None
    c = _site_call(ff, rec)
    if c is None:
        return None
    atomic_here, _inherit, _unknown, fact = g.call_context(c, ff)
    return livebug.find(g, rec, ff, c, fact if atomic_here else None)


def _other_callers(g, key, kind, shown):
    """The proof is "every caller runs in `kind`": name the direct callers the witness chain
    does not show (one line per calling function), each with where its own context comes from."""
    fn = key[1]
    seen = {(e.get("file"), e.get("function")) for e in shown
            if e.get("kind") in ("call", "textual") and f"calls {fn}()" in e.get("fact", "")}
    groups = {}
    for e in sorted(g.in_edges.get(key, []), key=lambda e: (e.file, e.line)):
        if (e.file, e.caller.name) not in seen:
            groups.setdefault((e.file, e.caller.name), []).append(e)
    out = []
    for (file, caller), edges in sorted(groups.items())[:MAX_OTHER_CALLERS]:
        e = edges[0]
        if e.atomic and not e.inherit:
            why = f"with {e.region_fact[1].split(' at line')[0]} held" if e.region_fact else "in a region"
        elif kind not in g.ctx.get(e.caller.key, {}):
            why = f"{caller}() itself is never called"
        else:
            origin = g.chain(e.caller.key, kind)
            why = f"{kind} only: {origin[0]['fact']}" if origin else f"{kind} only"
        lines = ", ".join(str(x.line) for x in edges)
        textual = any(x.textual for x in edges)
        out.append({"file": file, "line": e.line, "function": caller, "context": kind,
                    "kind": "textual" if textual else "call",
                    "fact": f"{caller}() also calls {fn}()" + (f" (lines {lines})" if len(edges) > 1 else "")
                            + f" ({why})" + (" (read from the text: spatch could not parse the call)"
                                             if textual else "")})
    rest = len(groups) - MAX_OTHER_CALLERS
    if rest > 0:
        last = out[-1]
        out.append(dict(last, fact=f"... and {rest} more calling function(s) of {fn}(), all {kind}"))
    return out


def _gfp_constant(rec, atomic, conf, common, evidence):
    """A gfp selector in a proven context keeps the flag of that context's branch."""
    ctx, branch = ("atomic", "atomic") if atomic else ("sleepable", "sleeping")
    gfp = _gfp_of(rec, atomic=atomic)
    if not gfp:
        return _base(rec, "manual-review", "medium", f"{ctx} proven but the GFP flag of the {branch} "
                     "branch is not a single constant", evidence)
    return _base(rec, f"{ctx}-proven", conf, None, evidence,
                 {"strategy": "gfp-constant", "params": dict(common, gfp=gfp)})


def _by_form(g, rec, kinds, evidence, n, ff):
    form, fn = rec["form"], rec["function"]
    common = {"file": rec["file"], "function": fn, "line": rec["line"]}
    strong = any(x.callee in E.STRONG_SLEEP for x in ff.calls.values() if x.func == fn)
    # A context read from a subsystem's kernel-doc prose, or a call read from the text of a
    # function spatch could not parse, is one step less certain than what spatch and the
    # tables give.
    conf = "medium" if any(ev.get("kind") in ("documented", "textual") for ev in evidence) else "high"
    if kinds == {E.SLEEPABLE}:
        if form == "gfp-select":
            return _gfp_constant(rec, False, conf, common, evidence)
        if form in ("sleep-guard", "delay-select", "lock-select", "bail-out"):
            return _base(rec, "sleepable-proven", conf, None, evidence,
                         {"strategy": "keep-branch", "params": dict(common, keep="sleep", might_sleep=not strong)})
        if form == "assertion":
            if rec["form_detail"].get("true_means") != "may-sleep" and not _asserts_atomic(rec):
                return _base(rec, "assertion", conf, None, evidence,
                             {"strategy": "assert-replace", "params": dict(common, **{"with": "might_sleep()"})})
            return _base(rec, "manual-review", "high", "assertion that the context IS atomic, but every path "
                         "to it is sleepable: the assertion would fire", evidence)
        return _base(rec, "manual-review", "medium", f"form {form}: the answer is passed on, not acted on", evidence)
    if kinds == {E.ATOMIC}:
        if form in SLEEP_INTENT_FORMS or (form == "lock-select" and rec["called"] in ATOMIC_MEANS_TRUE):
            if form == "gfp-select":
                return _gfp_constant(rec, True, conf, common, evidence)
            return _base(rec, "atomic-proven", conf, None, evidence,
                         {"strategy": "keep-branch", "params": dict(common, keep="atomic", might_sleep=False)})
        if form == "bail-out":
            if rec["called"] not in ATOMIC_MEANS_TRUE or rec["predicate"] != "in_atomic":
                return _base(rec, "manual-review", "medium", f"every path is atomic, but {rec['called']}() asks a "
                             "narrower question (IRQs off, hard/soft irq, netpoll) than 'may I sleep'", evidence)
            return _base(rec, "manual-review", "medium", "every path is atomic, so the bail-out would always "
                         "be taken: the function is unusable as written", evidence)
        if form == "assertion":
            return _base(rec, "manual-review", "medium", "assertion in a proven atomic context: no lockdep "
                         "assertion states the same invariant for in_atomic()", evidence)
        return _base(rec, "manual-review", "medium", f"form {form} in atomic context: the question asked is not "
                     "'may I sleep'", evidence)
    # Both contexts, every caller known. A caller that exists only under some #if (a debugfs
    # dump under CONFIG_DEBUG_FS, say) still passes its own context: the fix threads a value
    # from each call site, whichever configurations compile it.
    callers, why = _callers(g, n)
    if callers is None:
        return _base(rec, "manual-review", "medium", f"conflicting callers: {fn}() runs in both contexts; {why}",
                     evidence)
    if form == "gfp-select":
        gk, ga = _gfp_of(rec, atomic=False), _gfp_of(rec, atomic=True)
        if not gk or not ga:
            return _base(rec, "manual-review", "medium", "both contexts; GFP flags not constant", evidence)
        param = _gfp_param(n.params)
        cl = [dict(c, gfp=(ga if c.pop("ctx") == E.ATOMIC else gk)) for c in callers]
        return _base(rec, "caller-gfp", "high" if all(c["function"] for c in cl) else "medium", None, evidence,
                     {"strategy": "thread-gfp", "params": dict(common, param=param or "gfp", reuse=bool(param),
                                                               callers=cl)})
    if form in ("sleep-guard", "delay-select", "lock-select", "bail-out"):
        cl = [dict(c, value=(c.pop("ctx") == E.SLEEPABLE)) for c in callers]
        return _base(rec, "caller-flag", "high", None, evidence,
                     {"strategy": "thread-flag", "params": dict(common, param="may_sleep", callers=cl)})
    return _base(rec, "manual-review", "medium", f"both contexts reach this {form}", evidence)


WARN_ONLY = {"WARN_ON", "WARN_ON_ONCE"}
SAME_INVARIANT = {"!irqs_disabled()": "lockdep_assert_irqs_disabled()",
                  "irqs_disabled()": "lockdep_assert_irqs_enabled()",
                  "preemptible()": "lockdep_assert_preemption_disabled()"}


def _same_invariant(rec):
    """WARN_ON[_ONCE](!irqs_disabled()) and friends state exactly what a lockdep assertion
    states, whatever the context: no proof needed. BUG_ON is left alone (it stops the machine)."""
    d = rec.get("form_detail") or {}
    if rec["form"] != "assertion" or d.get("construct") != "call-arg" or d.get("callee") not in WARN_ONLY:
        return None
    return SAME_INVARIANT.get(rec["expression"].replace(" ", ""))


GUARANTEED_BY_IRQS_OFF = {"lockdep_assert_irqs_disabled()", "lockdep_assert_preemption_disabled()"}


def _guaranteed(g, rec, same):
    """Evidence that the core runs the asserting function only with IRQs off (an IPI
    callback, a hard irq handler that cannot be force-threaded), so the assertion can never
    fire; None unless every way in is such a registration, seen in full."""
    if same not in GUARANTEED_BY_IRQS_OFF:
        return None
    key = (rec["file"], rec["function"])
    n = g.nodes.get(key)
    if n is None or not n.expanded or n.exported or g.in_edges.get(key) or not n.entries:
        return None
    out = []
    for _ctx, fact, f, line, _kind in n.entries:
        if fact in E.IPI_CALLBACKS:
            why = "kernel/smp.c runs it with IRQs off"
        elif fact in E.HARDIRQ_HANDLERS and _not_threaded(g, f, line):
            why = "genirq runs it with IRQs off, and its flags rule out forced threading"
        else:
            return None
        out.append({"file": f, "line": line, "function": rec["function"], "kind": "registration",
                    "context": E.ATOMIC, "fact": f"{rec['function']}(): {fact}; {why}"})
    return out


_SECTION = re.compile(r"\b(__init|__exit)\b")


def _section(g, key):
    """'__init' or '__exit' when the function's definition head carries it (the text from
    the end of the previous declaration to the name settles it), else None."""
    n = g.nodes.get(key)
    ff = g.facts.get(key[0])
    if n is None or ff is None or not n.line or n.macro:
        return None
    head = "".join(ff.lines[max(0, n.line - 4):n.line])
    cut = max(head.rfind(";"), head.rfind("}"), head.rfind("*/"))
    head = head[cut + 1:]
    if not re.search(r"\b%s\s*\(" % re.escape(n.name), head):
        return None
    m = _SECTION.search(head)
    return m.group(1) if m else None


def _init_or_teardown_only(g, rec):
    """Evidence that the asserting function runs only at init or teardown: it is __init or
    __exit itself, or every call of it, all seen (expanded, not exported, never stored as a
    pointer), is made directly by __init or __exit functions. None otherwise."""
    key = (rec["file"], rec["function"])
    own = _section(g, key)
    if own:
        return [{"file": rec["file"], "line": rec["line"], "function": rec["function"],
                 "kind": "section", "fact": f"{rec['function']}() is {own}"}]
    n = g.nodes.get(key)
    edges = g.in_edges.get(key, [])
    if n is None or not n.expanded or n.exported or n.entries or not edges or \
            E.UNKNOWN in g.ctx.get(key, ()):
        return None
    out = []
    for e in edges:
        sec = None if e.via or e.caller.macro or e.textual else _section(g, e.caller.key)
        if not sec:
            return None
        out.append({"file": e.file, "line": e.line, "function": e.caller.name, "kind": "section",
                    "fact": f"called from {e.caller.name}() ({sec}, {e.file}:{e.line})"})
    return sorted(out, key=lambda x: (x["file"], x["line"]))


def _not_threaded(g, rel, line):
    """The request_irq() call at rel:line passes a flag that keeps its handler in hard irq."""
    ff = g.facts.get(rel)
    if ff is None:
        return False
    text = "".join(ff.lines[line - 1:line + 4])
    call = text[:text.find(";") + 1] if ";" in text else ""
    return any(re.search(r"\b%s\b" % fl, call) for fl in E.NOT_THREADED)


def _asserts_atomic(rec):
    d = rec["form_detail"]
    expr = rec["expression"].replace(" ", "")
    return "!" + rec["called"] in expr and d.get("true_means") != "may-sleep"


def _gfp_param(params):
    m = re.search(r"gfp_t\s+(\w+)", params or "")
    return m.group(1) if m else None


def _callers(g, n):
    """[{file, function, line, ctx}] when every direct caller's call site has one context."""
    out = []
    if n.entries:
        return None, f"{n.name}() is itself a callback ({n.entries[0][1]}): it cannot take a new parameter"
    for e in g.in_edges.get(n.key, []):
        if e.caller.macro:
            return None, f"called through macro {e.caller.name}"
        if e.via:
            return None, (f"{n.name}() is called through {e.via[0]} ({e.file}:{e.line}): it cannot take a "
                          "new parameter")
        if e.textual:
            return None, (f"caller {e.caller.name}() ({e.file}:{e.line}) could not be parsed by spatch: its "
                          "call cannot be patched")
        kinds = set()
        if e.atomic:
            kinds.add(E.ATOMIC)
        if e.inherit:
            kinds |= set(g.ctx[e.caller.key])
        if len(kinds) != 1 or E.UNKNOWN in kinds:
            ents = [x[1] for x in e.caller.entries if x[0] == "both"] or \
                [x[1] for x in g.nodes[e.caller.key].entries]
            return None, (f"caller {e.caller.name}() ({e.file}:{e.line}) itself runs in both contexts"
                          + (f": {ents[0]}" if ents else ""))
        out.append({"file": e.file, "function": e.caller.name, "line": e.line, "ctx": kinds.pop()})
    if not out:
        return None, "no direct caller"
    return sorted(out, key=lambda c: (c["file"], c["line"])), None


def run(tree, doc, scope, store, fps, pre, jobs, log=None):
    """Classify every finding of `doc` in place. Returns the Graph (for tests and timing)."""
    t0 = time.monotonic()
    scope_all = "." in scope
    recs = doc["findings"]
    start = sorted({(r["file"], r["function"]) for r in recs
                    if r["function"] and not (scope_all and _core(r)) and r["form"] != "wrapper"})
    g = Graph(tree, store, fps, pre, jobs)
    site_callees = {}
    for r in recs:
        if r["function"]:
            site_callees.setdefault(r["file"], set()).update([r["called"], *E.SLEEP_EVIDENCE])
    g.build(start, site_callees)
    g.propagate()
    g.store.flush()
    for rec in recs:
        try:
            g.view((rec["file"], rec["function"]))
            classify_one(g, rec, scope_all)
            rec["live_bug"] = _live_bug(g, rec, scope_all)
        except Exception as exc:      # never a proof from a crash
            _base(rec, "manual-review", "low", f"classifier error: {type(exc).__name__}: {exc}", [])
    pre.save()
    fps.save()
    LAST_TIMING.update(classify_seconds=time.monotonic() - t0, nodes=len(g.nodes), edges=len(g.edges),
                       files=len(g.facts), spatch_runs=g.spatch_runs)
    LAST_FILES[:] = sorted(g.facts)
    return g
