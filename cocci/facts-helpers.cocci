// SPDX-License-Identifier: GPL-2.0-only
/// Facts for context inference, second pass: regions opened by a driver's own lock
/// helpers (functions that return with a lock held or IRQs off, found by
/// facts-context.cocci), and helpers built on helpers.
//# A fact-collection rule: it prints one JSON record a fact on lines starting with
//# "AJ:" in janitor mode. The helper names come from $AJ_PREDICATES: "+name" for a
//# function that opens a region, "-name" for one that closes it; a bare name is a
//# callee whose calls' regions are wanted (as in facts-regions.cocci; ".member" for a
//# call through that struct member). A helper region
//# ends at any closing helper or primitive release (helpers rarely nest).
///
// Confidence: Moderate
// Copyright: (C) 2026 atomic-janitor contributors
// Options: --no-includes --include-headers

virtual report
virtual janitor

@initialize:python@
@@
import json
import os

_NAMES = [n for n in (os.environ.get("AJ_PREDICATES") or "").split(",") if n]
HACQ = frozenset(n[1:] for n in _NAMES if n.startswith("+"))
HREL = frozenset(n[1:] for n in _NAMES if n.startswith("-"))
CALLEES = frozenset(n for n in _NAMES if n[0] not in "+-")
PRIM_REL = frozenset("""spin_unlock spin_unlock_irq spin_unlock_irqrestore spin_unlock_bh
raw_spin_unlock raw_spin_unlock_irq raw_spin_unlock_irqrestore raw_spin_unlock_bh
read_unlock read_unlock_irq read_unlock_irqrestore read_unlock_bh write_unlock write_unlock_irq
write_unlock_irqrestore write_unlock_bh local_irq_restore local_irq_enable local_bh_enable
preempt_enable rcu_read_unlock rcu_read_unlock_bh rcu_read_unlock_sched""".split())
CLOSE = HREL | PRIM_REL

def aj_emit(kind, p, **kw):
    rec = {"kind": kind, "file": p[0].file, "line": int(p[0].line),
           "col": int(p[0].column), "element": p[0].current_element}
    rec.update((k, v if isinstance(v, (int, type(None))) else str(v)) for k, v in kw.items())
    print("AJ:" + json.dumps(rec, sort_keys=True), flush=True)

@hreg depends on janitor exists@
identifier acq : script:python() { acq in HACQ };
identifier rel : script:python() { rel in CLOSE };
identifier f : script:python() { f in CALLEES };
identifier g : script:python() { ("." + g) in CALLEES };
expression E9, I9;
position p, q;
@@
acq@q(...)
... when != rel(...)
    when any
(
f@p(...)
|
E9->g@p(...)
|
E9.g@p(...)
|
E9->g@p[I9](...)
|
E9.g@p[I9](...)
)

@script:python depends on janitor@
p << hreg.p;
q << hreg.q;
@@
aj_emit("region", p, family="helper", at=int(q[0].line))

@entry depends on janitor exists@
identifier acq : script:python() { acq in HACQ };
identifier fn, f, g;
expression E9, I9;
position hreg.p, e;
@@
fn(...) {
... when != acq(...)
    when any
(
f@p@e(...)
|
E9->g@p@e(...)
|
E9.g@p@e(...)
|
E9->g@p@e[I9](...)
|
E9.g@p@e[I9](...)
)
... when any
}

@script:python depends on janitor@
p << entry.e;
@@
aj_emit("entry", p)

@after depends on janitor exists@
identifier acq : script:python() { acq in HACQ };
identifier rel : script:python() { rel in CLOSE };
identifier f, g;
expression E9, I9;
position hreg.p, e;
@@
rel(...)
... when != acq(...)
    when any
(
f@p@e(...)
|
E9->g@p@e(...)
|
E9.g@p@e(...)
|
E9->g@p@e[I9](...)
|
E9.g@p@e[I9](...)
)

@script:python depends on janitor@
p << after.e;
@@
aj_emit("entry", p, after_release=1)

@hold depends on janitor exists@
identifier acq : script:python() { acq in HACQ };
identifier rel : script:python() { rel in CLOSE };
identifier fn;
position p, q;
@@
fn@p(...) {
... when any
acq@q(...)
... when != rel(...)
}

@script:python depends on janitor@
p << hold.p;
q << hold.q;
fn << hold.fn;
@@
aj_emit("acquires", p, name=fn, family="helper", at=int(q[0].line))

@rels depends on janitor exists@
identifier acq : script:python() { acq in HACQ };
identifier rel : script:python() { rel in HREL };
identifier fn;
position p, q;
@@
fn@p(...) {
... when != acq(...)
rel@q(...)
... when any
}

@script:python depends on janitor@
p << rels.p;
q << rels.q;
fn << rels.fn;
@@
aj_emit("releases", p, name=fn, at=int(q[0].line))
