// SPDX-License-Identifier: GPL-2.0-only
/// Find in_atomic() (and, in janitor mode, the other context-guessing predicates
/// and their wrappers) in code that should be told its context by its caller.
//# in_atomic() cannot see held spinlocks on kernels without CONFIG_PREEMPT_COUNT,
//# so every hit needs a decision about what replaces it: a gfp_t or bool from
//# the caller, a proven context, or a well-defined condition. Uses in core code
//# (kernel/, mm/, arch/) and debugging helpers are legitimate; review them, do
//# not blindly remove them.
///
// Confidence: High
// Copyright: (C) 2026 atomic-janitor contributors
// Comments: the janitor mode (-D janitor) is atomic-janitor's own: it reads the
//  predicate and wrapper names from $AJ_PREDICATES and prints one JSON record a
//  fact on lines starting with "AJ:" (see docs/findings-schema.md).
// Options: --no-includes --include-headers

virtual context
virtual org
virtual report
virtual janitor

@initialize:python@
@@
import json
import os

# Under the kernel's coccicheck the variable is unset: in_atomic() only.
PREDS = frozenset(n for n in (os.environ.get("AJ_PREDICATES") or "in_atomic").split(",") if n)

def aj_emit(kind, p, **kw):
    rec = {"kind": kind, "file": p[0].file, "line": int(p[0].line),
           "col": int(p[0].column), "colend": int(p[0].column_end),
           "element": p[0].current_element}
    rec.update(kw)
    print("AJ:" + json.dumps(rec, sort_keys=True), flush=True)

// ------------------------------------------------------------------ the uses

@r@
identifier fn : script:python() { fn in PREDS };
position p;
@@
fn@p(...)

@n@
identifier f;
position r.p;
@@
f@p(...)

@ctx depends on context@
identifier n.f;
position r.p;
@@
* f@p(...)

@script:python depends on org@
p << r.p;
f << n.f;
@@
cocci.print_main("%s() guesses the calling context" % f, p)

@script:python depends on report@
p << r.p;
f << n.f;
@@
sev = "ERROR" if p[0].file.startswith("drivers/") or "/drivers/" in p[0].file else "WARNING"
coccilib.report.print_report(p[0], "%s: %s() cannot tell whether sleeping is allowed; "
                             "let the caller pass a gfp_t or a bool" % (sev, f))

@script:python depends on janitor@
p << r.p;
f << n.f;
@@
aj_emit("use", p, called=f)

// ------------------------------- janitor: the construct around each use

@tern depends on janitor@
identifier n.f;
position r.p;
expression A, B, C;
@@
\(C \& <+... f@p(...) ...+>\) ? A : B

@script:python depends on janitor@
p << r.p;
A << tern.A;
B << tern.B;
C << tern.C;
@@
aj_emit("ternary", p, cond=C, then=A, other=B)

@ite depends on janitor disable neg_if@
identifier n.f;
position r.p;
expression C;
statement S1, S2;
@@
if (\(C \& <+... f@p(...) ...+>\)) S1 else S2

@script:python depends on janitor@
p << r.p;
C << ite.C;
S1 << ite.S1;
S2 << ite.S2;
@@
aj_emit("if", p, cond=C, then=S1, other=S2)

@it depends on janitor@
identifier n.f;
position r.p;
expression C;
statement S1;
@@
if (\(C \& <+... f@p(...) ...+>\)) S1

@script:python depends on janitor@
p << r.p;
C << it.C;
S1 << it.S1;
@@
aj_emit("if", p, cond=C, then=S1, other=None)

@asg depends on janitor@
identifier n.f;
position r.p;
expression x, C;
@@
x = \(C \& <+... f@p(...) ...+>\)

@script:python depends on janitor@
p << r.p;
x << asg.x;
C << asg.C;
@@
aj_emit("assign", p, var=x, cond=C)

@decl depends on janitor@
identifier n.f;
position r.p;
type T;
identifier v;
expression C;
@@
T v = \(C \& <+... f@p(...) ...+>\);

@script:python depends on janitor@
p << r.p;
v << decl.v;
T << decl.T;
C << decl.C;
@@
aj_emit("assign", p, var=v, type=T, cond=C)

@ret depends on janitor@
identifier n.f;
position r.p;
expression C;
@@
return \(C \& <+... f@p(...) ...+>\);

@script:python depends on janitor@
p << r.p;
C << ret.C;
@@
aj_emit("return", p, cond=C)

@carg depends on janitor@
identifier n.f;
position r.p;
identifier m;
expression list es1, es2;
expression C;
@@
m(es1, \(C \& <+... f@p(...) ...+>\), es2)

@script:python depends on janitor@
p << r.p;
m << carg.m;
C << carg.C;
@@
aj_emit("call-arg", p, callee=m, cond=C)

@inl depends on janitor@
identifier n.f;
position r.p;
identifier g;
type T;
@@
static inline T g(...) { <+... f@p(...) ...+> }

@script:python depends on janitor@
p << r.p;
g << inl.g;
@@
aj_emit("inline", p, function=g)

@stat depends on janitor@
identifier n.f;
position r.p;
identifier g;
type T;
@@
static T g(...) { <+... f@p(...) ...+> }

@script:python depends on janitor@
p << r.p;
g << stat.g;
@@
aj_emit("static", p, function=g)

// An answer stored in a variable is judged by what the code does with it.

@vif depends on janitor disable neg_if@
identifier decl.v;
position q;
expression C;
statement S1, S2;
@@
if (\(C \& <+... v@q ...+>\)) S1 else S2

@script:python depends on janitor@
p << r.p;
q << vif.q;
C << vif.C;
S1 << vif.S1;
S2 << vif.S2;
@@
aj_emit("var-if", p, at=int(q[0].line), in_element=q[0].current_element, cond=C, then=S1, other=S2)

@vit depends on janitor@
identifier decl.v;
position q;
expression C;
statement S1;
@@
if (\(C \& <+... v@q ...+>\)) S1

@script:python depends on janitor@
p << r.p;
q << vit.q;
C << vit.C;
S1 << vit.S1;
@@
aj_emit("var-if", p, at=int(q[0].line), in_element=q[0].current_element, cond=C, then=S1, other=None)

@vcarg depends on janitor@
identifier decl.v;
position q;
identifier m;
expression list es1, es2;
expression C;
@@
m(es1, \(C \& <+... v@q ...+>\), es2)

@script:python depends on janitor@
p << r.p;
q << vcarg.q;
m << vcarg.m;
C << vcarg.C;
@@
aj_emit("var-call-arg", p, at=int(q[0].line), in_element=q[0].current_element, callee=m, cond=C)

@vtern depends on janitor@
identifier decl.v;
position q;
expression A, B, C;
@@
\(C \& <+... v@q ...+>\) ? A : B

@script:python depends on janitor@
p << r.p;
q << vtern.q;
A << vtern.A;
B << vtern.B;
C << vtern.C;
@@
aj_emit("var-ternary", p, at=int(q[0].line), in_element=q[0].current_element, cond=C, then=A, other=B)
