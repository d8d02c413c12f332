"""Generate cocci/facts-context.cocci and cocci/facts-regions.cocci from the region families
below (run after an edit; the generated rules are checked in so that they run unchanged under
spatch, and tests/analysis/test_gen_facts_rule.py fails when they are stale).

    PYTHONPATH=scripts /usr/bin/python3 -m atomic_janitor.analysis.gen_facts_rule

Two rules, because their costs differ by orders of magnitude: definitions, calls and lock
helpers are cheap and wanted for every file of the call graph; the path regions around a
call are the expensive part (12 s for drivers/base/power/runtime.c over every call) and are
wanted only around the calls the graph follows, so facts-regions.cocci is told their names.
"""

import os
import sys

# (family, paired-by-first-argument, acquires, releases)
FAMILIES = [
    ("lock", True,
     ["spin_lock", "spin_lock_irq", "spin_lock_irqsave", "spin_lock_bh", "spin_lock_nested",
      "spin_lock_irqsave_nested", "spin_lock_nest_lock", "raw_spin_lock", "raw_spin_lock_irq",
      "raw_spin_lock_irqsave", "raw_spin_lock_bh", "raw_spin_lock_nested", "raw_spin_lock_irqsave_nested",
      "read_lock", "read_lock_irq", "read_lock_irqsave", "read_lock_bh",
      "write_lock", "write_lock_irq", "write_lock_irqsave", "write_lock_bh", "write_lock_nested",
      "local_lock", "local_lock_irq", "local_lock_irqsave", "local_lock_nested_bh",
      "write_seqlock", "write_seqlock_irq", "write_seqlock_irqsave", "write_seqlock_bh",
      "read_seqlock_excl", "read_seqlock_excl_irq", "read_seqlock_excl_irqsave", "read_seqlock_excl_bh",
      "bit_spin_lock", "hlist_bl_lock", "netif_tx_lock", "netif_tx_lock_bh", "netif_addr_lock",
      "netif_addr_lock_bh", "__netif_tx_lock", "__netif_tx_lock_bh", "bh_lock_sock", "bh_lock_sock_nested"],
     ["spin_unlock", "spin_unlock_irq", "spin_unlock_irqrestore", "spin_unlock_bh",
      "raw_spin_unlock", "raw_spin_unlock_irq", "raw_spin_unlock_irqrestore", "raw_spin_unlock_bh",
      "read_unlock", "read_unlock_irq", "read_unlock_irqrestore", "read_unlock_bh",
      "write_unlock", "write_unlock_irq", "write_unlock_irqrestore", "write_unlock_bh",
      "local_unlock", "local_unlock_irq", "local_unlock_irqrestore", "local_unlock_nested_bh",
      "write_sequnlock", "write_sequnlock_irq", "write_sequnlock_irqrestore", "write_sequnlock_bh",
      "read_sequnlock_excl", "read_sequnlock_excl_irq", "read_sequnlock_excl_irqrestore",
      "read_sequnlock_excl_bh", "bit_spin_unlock", "__bit_spin_unlock", "hlist_bl_unlock",
      "netif_tx_unlock", "netif_tx_unlock_bh", "netif_addr_unlock", "netif_addr_unlock_bh",
      "__netif_tx_unlock", "__netif_tx_unlock_bh", "bh_unlock_sock"]),
    ("irqsave", True, ["local_irq_save", "raw_local_irq_save"], ["local_irq_restore", "raw_local_irq_restore"]),
    ("irq", False, ["local_irq_disable", "raw_local_irq_disable"], ["local_irq_enable", "raw_local_irq_enable"]),
    ("bh", False, ["local_bh_disable"], ["local_bh_enable"]),
    ("preempt", False, ["preempt_disable", "preempt_disable_notrace"],
     ["preempt_enable", "preempt_enable_no_resched", "preempt_enable_notrace"]),
    ("rcu", False, ["rcu_read_lock", "rcu_read_lock_bh", "rcu_read_lock_sched", "rcu_read_lock_sched_notrace"],
     ["rcu_read_unlock", "rcu_read_unlock_bh", "rcu_read_unlock_sched", "rcu_read_unlock_sched_notrace"]),
    ("cpu", False, ["get_cpu", "get_cpu_var", "get_cpu_ptr"], ["put_cpu", "put_cpu_var", "put_cpu_ptr"]),
    ("pagefault", False, ["pagefault_disable"], ["pagefault_enable"]),
    # kmap_atomic() regions are found from the call records (lexically, in Python): as a
    # path region in loops they cost minutes on some files (e1000e).
]
TRYLOCKS = ["spin_trylock", "spin_trylock_irq", "spin_trylock_irqsave", "spin_trylock_bh",
            "raw_spin_trylock", "raw_spin_trylock_irq", "raw_spin_trylock_irqsave", "raw_spin_trylock_bh",
            "read_trylock", "write_trylock", "local_trylock", "local_trylock_irqsave", "netif_tx_trylock",
            "__netif_tx_trylock"]

PROLOGUE = """\
// Confidence: High
// Copyright: (C) 2026 atomic-janitor contributors
// Options: --no-includes --include-headers

virtual report
virtual janitor

@initialize:python@
@@
import json
{imports}
def aj_emit(kind, p, **kw):
    rec = {{"kind": kind, "file": p[0].file, "line": int(p[0].line),
           "col": int(p[0].column), "element": p[0].current_element}}
    rec.update((k, v if isinstance(v, (int, type(None))) else str(v)) for k, v in kw.items())
    print("AJ:" + json.dumps(rec, sort_keys=True), flush=True)
"""

CALLEES = """import os

# The callees whose regions are wanted: a comma list in the environment, like the
# predicate names of in_atomic.cocci.
CALLEES = frozenset(n for n in (os.environ.get("AJ_PREDICATES") or "").split(",") if n)
"""

# A call through a member, in the forms both rules know; {p} is the position suffix.
FIELD_CALLS = """(
E9->g{p}(...)
|
E9.g{p}(...)
|
E9->g{p}[I9](...)
|
E9.g{p}[I9](...)
)
"""

CONTEXT_HEADER = """\
// SPDX-License-Identifier: GPL-2.0-only
/// Facts for context inference, first pass: function definitions, every call with its
/// enclosing function, and lock helpers (functions that return with a region open, or
/// close one they did not open).
//# A fact-collection rule: it prints one JSON record a fact on lines starting with
//# "AJ:" in janitor mode and nothing in the coccicheck modes. The regions around the
//# calls are facts-regions.cocci's.
//# GENERATED by scripts/atomic_janitor/analysis/gen_facts_rule.py: edit that instead.
///
""" + PROLOGUE.format(imports="") + """
// ------------------------------------------------------------- definitions

@def depends on janitor@
identifier fn;
position p;
parameter list ps;
type T;
@@
T fn@p(ps) { ... }

@script:python depends on janitor@
p << def.p;
fn << def.fn;
ps << def.ps;
@@
aj_emit("def", p, name=fn, params=ps)

@sdef depends on janitor@
identifier fn;
position p;
type T;
@@
static T fn@p(...) { ... }

@script:python depends on janitor@
p << sdef.p;
fn << sdef.fn;
@@
aj_emit("static", p, name=fn)

// ------------------------------------------------------------------- calls

@call depends on janitor@
iterator name scoped_guard, scoped_cond_guard;
identifier f;
position p;
@@
f@p(...)

@script:python depends on janitor@
p << call.p;
f << call.f;
@@
aj_emit("call", p, callee=f)

// Calls through a struct member (ops->fn(...), tbl->handlers[i](...)): recorded under the
// callee name ".member", the name facts-regions.cocci is asked about for their regions.
// Only these forms are recorded, the ones the region rules match: any other use of a
// member (read into a variable, passed on) is no call, and the graph treats it as an escape.

@fcall depends on janitor@
identifier g;
expression E9, I9;
position p;
@@
""" + FIELD_CALLS.format(p="@p") + """
@script:python depends on janitor@
p << fcall.p;
g << fcall.g;
@@
aj_emit("call", p, callee="." + g)
"""

REGIONS_HEADER = """\
// SPDX-License-Identifier: GPL-2.0-only
/// Facts for context inference, second pass: the atomic regions (lock, irq, bh,
/// preempt, RCU, ...) that calls of the functions named in $AJ_PREDICATES may sit in.
//# A fact-collection rule: it prints one JSON record a fact on lines starting with
//# "AJ:" in janitor mode. Regions are found along control-flow paths (exists):
//# "region" means some path reaches the call with the region open, "entry" that some
//# path from the function entry reaches it with none. Records name the call by its
//# position; the callee is in facts-context.cocci's "call" record at the same place.
//# GENERATED by scripts/atomic_janitor/analysis/gen_facts_rule.py: edit that instead.
///
""" + PROLOGUE.format(imports=CALLEES)


def idset(var, names):
    return f"identifier {var} = {{{', '.join(names)}}};\n"


ALL_ACQ = [n for _f, _p, acq, _r in FAMILIES for n in acq]
ALL_REL = [n for _f, _p, _a, rel in FAMILIES for n in rel]


WANTED = ("identifier f : script:python() { f in CALLEES };\n"
          "identifier g : script:python() { (\".\" + g) in CALLEES };\nexpression E9, I9;\n")


def call_at(p):
    """A wanted call at position(s) p: a named function, or a member (".name" in CALLEES)."""
    return (f"(\nf{p}(...)\n|\n" + FIELD_CALLS.format(p=p)[2:]).rstrip("\n")


# Every `...` that leads to a wanted call says `when any`: by default `...` stops at the first
# node that matches what follows it (shortest path), so only the first wanted call after an
# acquire got its region, and only the first from the entry its "entry" record. A second
# call under the same spinlock then read as "no region": the caller's context, not atomic.


def rules():
    """(facts-context.cocci, facts-regions.cocci) texts."""
    ctx, reg = [CONTEXT_HEADER], [REGIONS_HEADER]
    all_acq = [n for _f, _p, acq, _r in FAMILIES for n in acq]
    all_rel = [n for _f, _p, _a, rel in FAMILIES for n in rel]
    for fam, paired, acq, rel in FAMILIES:
        a_arg = "E, ..." if paired else "..."
        r_arg = "E, ..." if paired else "..."
        ev = "expression E;\n" if paired else ""
        reg.append(f"""
// ------------------------------------------------------- region: {fam}

@reg_{fam} depends on janitor exists@
{ev}{idset("acq", acq)}{idset("rel", rel)}{WANTED}position p, q;
@@
acq@q({a_arg})
... when != rel({r_arg})
    when any
{call_at("@p")}

@script:python depends on janitor@
p << reg_{fam}.p;
q << reg_{fam}.q;
@@
aj_emit("region", p, family="{fam}", at=int(q[0].line))

@entry_{fam} depends on janitor exists@
{idset("acq", ALL_ACQ)}identifier fn, f, g;
expression E9, I9;
position reg_{fam}.p, e;
@@
fn(...) {{
... when != acq(...)
    when any
{call_at("@p@e")}
... when any
}}

@script:python depends on janitor@
p << entry_{fam}.e;
@@
aj_emit("entry", p)

@after_{fam} depends on janitor exists@
{idset("acq", ALL_ACQ)}{idset("rel", ALL_REL)}identifier f, g;
expression E9, I9;
position reg_{fam}.p, e;
@@
rel(...)
... when != acq(...)
    when any
{call_at("@p@e")}

@script:python depends on janitor@
p << after_{fam}.e;
@@
aj_emit("entry", p, after_release=1)
""")
        ctx.append(f"""
// ------------------------------------------------ helpers holding: {fam}

@hold_{fam} depends on janitor exists@
{ev}{idset("acq", acq)}{idset("rel", rel)}identifier fn;
position p, q;
@@
fn@p(...) {{
... when any
acq@q({a_arg})
... when != rel({r_arg})
}}

@script:python depends on janitor@
p << hold_{fam}.p;
q << hold_{fam}.q;
fn << hold_{fam}.fn;
@@
aj_emit("acquires", p, name=fn, family="{fam}", at=int(q[0].line))
""")
    reg.append(f"""
// ------------------------------------ successful trylocks (a region on some path)

@reg_try depends on janitor exists@
expression E;
{idset("acq", TRYLOCKS)}{idset("rel", FAMILIES[0][3])}{WANTED}position p, q;
@@
acq@q(E, ...)
... when != rel(E, ...)
    when any
{call_at("@p")}

@script:python depends on janitor@
p << reg_try.p;
q << reg_try.q;
@@
aj_emit("region", p, family="trylock", at=int(q[0].line))

@entry_try depends on janitor exists@
{idset("acq", all_acq)}identifier fn, f, g;
expression E9, I9;
position reg_try.p, e;
@@
fn(...) {{
... when != acq(...)
    when any
{call_at("@p@e")}
... when any
}}

@script:python depends on janitor@
p << entry_try.e;
@@
aj_emit("entry", p)
""")
    ctx.append(f"""
// ------------- functions that close a region they did not open (the caller's)

@rel depends on janitor exists@
{idset("acq", all_acq)}{idset("rel", all_rel)}identifier fn;
position p, q;
@@
fn@p(...) {{
... when != acq(...)
rel@q(...)
... when any
}}

@script:python depends on janitor@
p << rel.p;
q << rel.q;
fn << rel.fn;
@@
aj_emit("releases", p, name=fn, at=int(q[0].line))
""")
    return "".join(ctx), "".join(reg)


COCCI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "cocci")
OUTPUTS = ("facts-context.cocci", "facts-regions.cocci")


def main(argv):
    """Write the rules; with --check, only say (exit 1) whether the checked-in ones are stale."""
    stale = []
    for name, text in zip(OUTPUTS, rules()):
        path = os.path.join(COCCI, name)
        try:
            with open(path, encoding="utf-8") as fh:
                same = fh.read() == text
        except OSError:
            same = False
        if same:
            continue
        stale.append(name)
        if "--check" not in argv:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
    if "--check" in argv and stale:
        print("stale: " + ", ".join(stale) + " (run python -m atomic_janitor.analysis.gen_facts_rule)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
