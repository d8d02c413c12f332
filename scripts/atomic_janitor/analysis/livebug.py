"""Live bugs (issue 16): where today's guess takes a sleeping branch on a traced atomic path.

For every atomic origin that reaches a site through the traced graph (a lock or irq region
around a call, or an entry point whose context is atomic), the predicate is evaluated the way
include/linux/preempt.h and include/linux/irqflags.h define it, with and without
CONFIG_PREEMPT_COUNT: a spinlock or preempt_disable() raises the preempt count only with
PREEMPT_COUNT; spin_lock_bh()/local_bh_disable() raise the softirq count on every kernel;
the _irq/_irqsave variants and local_irq_*() disable IRQs. If the branch the guess then picks
sleeps, the site is a live bug, on the configurations where that happens. Only traced paths
count: an unexpanded or unknown caller is never a bug, as it is never a proof. The opposite
mistake (the atomic branch on a sleepable path) is not a bug and is not reported here."""

import re

from . import entries as E

SLEEPING_GFP = re.compile(r"\bGFP_(KERNEL|NOIO|NOFS|USER|HIGHUSER\w*)\b")
SLEEPING_LOCK = re.compile(r"^(mutex_lock\w*|down|down_(read|write|interruptible|killable|timeout)\w*)$")
# Names the form facts count as sleeping that never sleep: a bug claim rests on none of them.
NEVER_SLEEPS = re.compile(r"trylock|^schedule_(\w*work\w*|on\w*)$|^kthread_(should_stop|data|func)\w*$|"
                          r"^wake_up\w*$|^wait_queue\w*$")
# A region primitive -> the state it creates (beyond the preempt count of a spinlock).
_IRQ_VARIANT = re.compile(r"_irq(save)?$")
_LOCK = re.compile(r"^(raw_)?(spin|read|write)_lock(_irq|_irqsave|_bh)?$|^(raw_)?spin_lock_nested$")


def region_state(primitive):
    """{hardirq, softirq, bh, preempt, irqs} a region opened by `primitive` creates, or None
    when the tool does not model it (rcu, kmap, helpers: no bug is claimed on those)."""
    if _LOCK.match(primitive):
        st = {"preempt"}
        if _IRQ_VARIANT.search(primitive):
            st.add("irqs")
        if primitive.endswith("_bh"):
            st.add("bh")
        return st
    return {"local_irq_disable": {"irqs"}, "local_irq_save": {"irqs"}, "local_bh_disable": {"bh"},
            "preempt_disable": {"preempt"}}.get(primitive)


def entry_state(fact):
    """The state of an atomic entry point, read from the fact the tables give it."""
    f = fact.lower()
    if "pcm" in f and "irqs off" in f:
        return {"preempt", "irqs"}
    if re.search(r"\b(hard)?irq handler\b|interrupt handler|request_\w*irq", f):
        return {"hardirq", "irqs"}
    if re.search(r"\btimer\b|\btasklet\b|softirq|\bnapi\b", f):
        return {"softirq"}
    return None


def values(state, preempt_count):
    """What each guessing predicate returns in `state` (include/linux/preempt.h, 6.1)."""
    hard, soft = "hardirq" in state, "softirq" in state
    count = hard or soft or "bh" in state or ("preempt" in state and preempt_count)
    irqs = "irqs" in state or hard
    return {
        "in_atomic": count, "in_interrupt": hard or soft or "bh" in state,
        "in_irq": hard, "in_hardirq": hard, "in_softirq": soft or "bh" in state,
        "in_serving_softirq": soft, "in_nmi": False, "irqs_disabled": irqs,
        "in_task": not (hard or soft),
        "preemptible": preempt_count and not count and not irqs,
        "drm_can_sleep": not (count or irqs),
    }


_TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[A-Za-z_]\w*\s*\(\s*\))")


def evaluate(expression, vals):
    """The C condition with the predicates' values; None if it holds anything else."""
    pos, out = 0, []
    while pos < len(expression):
        m = _TOKEN.match(expression, pos)
        if not m:
            return None if expression[pos:].strip() else _run(out)
        tok = m.group(1)
        pos = m.end()
        if tok == "||":
            out.append(" or ")
        elif tok == "&&":
            out.append(" and ")
        elif tok == "!":
            out.append(" not ")
        elif tok in "()":
            out.append(tok)
        else:
            name = tok.split("(")[0].strip()
            if name not in vals:
                return None
            out.append(" True " if vals[name] else " False ")
    return _run(out)


def _run(out):
    try:
        return bool(eval("".join(out), {"__builtins__": {}}, {}))   # only and/or/not/True/False
    except SyntaxError:
        return None


def _origins(g, key, local):
    """(state, path, origin fact) for each atomic origin the traced graph shows for `key`
    (a region only where its function can run in task context, see _in_task),
    the first (shortest) path each. `local`: the site call's own region fact, if any.
    A state is the origin's together with every region held below it on its path, the
    site's own included: spin_lock_bh() around the site raises the softirq count whatever
    lock a caller took, and in_interrupt() then answers true."""
    out = []
    below = set()
    if local:
        prim = local[1].split("(")[0]
        st = region_state(prim)
        if st:
            below = set(st)
            if _in_task(g, key):
                out.append((st, [], f"{prim}() held"))
    prev = {key: None}
    order = [key]
    i = 0
    while i < len(order):
        k = order[i]
        i += 1
        n = g.nodes[k]
        for ent in n.entries:
            if ent[0] in (E.ATOMIC, "both"):
                st = entry_state(ent[1])
                if st:
                    out.append((st | below | _held_below(prev, k),
                                _path(g, prev, k, f"{ent[2]}:{ent[3] or n.line or 1} {n.name}(): {ent[1]}"),
                                ent[1]))
        for e in g.in_edges.get(k, []):
            if e.atomic and e.region_fact:
                prim = e.region_fact[1].split("(")[0]
                st = region_state(prim)
                if st and _in_task(g, e.caller.key):
                    out.append((st | below | _held_below(prev, k),
                                _path(g, prev, k, f"{e.file}:{e.region_fact[0]} {e.caller.name}() "
                                                      f"takes {prim}()", f"{e.file}:{e.line} "
                                                      f"{e.caller.name}() calls {n.name}()"), f"{prim}() held"))
            if e.inherit and e.caller.key not in prev:
                prev[e.caller.key] = (k, e)
                order.append(e.caller.key)
    return out


def _in_task(g, key):
    """Can `key` run in task context, with no irq or softirq count of its own? A region it
    opens is a bug's origin only then: under a timer, in_interrupt() still answers true
    inside its spin_lock_irqsave() (the timer's own origin is judged as an entry)."""
    return E.SLEEPABLE in g.ctx.get(key, {})


def _held_below(prev, k):
    """The states of the regions around the calls on the path from k down to the site."""
    held = set()
    while prev.get(k) is not None:
        callee, e = prev[k]
        if e.atomic and e.region_fact:
            held |= region_state(e.region_fact[1].split("(")[0]) or set()
        k = callee
    return held


def _path(g, prev, k, *head):
    """From the origin down to the site: head items, then each call to the site function."""
    path = list(head)
    while prev.get(k) is not None:
        callee, e = prev[k]
        path.append(f"{e.file}:{e.line} {e.caller.name}() calls {callee[1]}()")
        k = callee
    return path


def find(g, rec, ff, call, local):
    """The live_bug record of one finding, or None."""
    detail = rec.get("form_detail") or {}
    branches = detail.get("branches") or []
    if detail.get("construct") not in ("if", "if-else", "ternary") or len(branches) != 2:
        return None
    key = (rec["file"], rec["function"])
    for state, path, _fact in _origins(g, key, local):
        bad = {}
        for pc in (True, False):
            v = evaluate(rec["expression"], values(state, pc))
            if v is None:
                break
            branch = branches[0 if v else 1]
            sleeps = [c for c in (branch.get("sleeps") or []) + (branch.get("locks") or [])
                      if (c in (branch.get("sleeps") or []) or SLEEPING_LOCK.match(c)) and not NEVER_SLEEPS.search(c)]
            gfp = [x for x in branch.get("gfp") or [] if SLEEPING_GFP.search(x)]
            if sleeps or gfp:
                bad[pc] = sleeps[0] if sleeps else gfp[0]
        if False not in bad:
            continue            # a bug with PREEMPT_COUNT only does not exist: in_atomic() sees more there
        when = "always" if True in bad else "!PREEMPT_COUNT"
        what = bad[False]
        at = _sleep_line(ff, rec, what)
        site = f"{rec['file']}:{rec['line']} {rec['function']}()"
        return {"when": when, "path": path + [site],
                "sleeps": f"{rec['file']}:{at} {what}{'()' if not what.startswith('GFP_') else ''}"}
    return None


def _sleep_line(ff, rec, name):
    """The line of the sleeping call the branch makes (the first after the site)."""
    lines = sorted(c.line for c in ff.calls.values()
                   if c.func == rec["function"] and c.callee == name and c.line >= rec["line"])
    return lines[0] if lines else rec["line"]
