// SPDX-License-Identifier: GPL-2.0-only
/// Make the caller say which GFP flags to use: thread a gfp_t parameter param
/// into function fn, replace its context-guessing selector by param, and pass
/// each caller's own flag (value) at each call.
//# Instantiated once per step: -D site replaces the selector at $AJ_LINE in fn,
//# -D def adds the parameter to the definition of fn, -D proto to a prototype,
//# -D call appends value to the call of fn in function caller at $AJ_LINE.
//# Every caller must be known (no exported symbol, no function pointer).
///
// Confidence: High
// Copyright: (C) 2026 atomic-janitor contributors
// Comments: instantiated per finding by scripts/atomic_janitor/patches/fix.py
// Options: --no-includes --include-headers

virtual patch
virtual site
virtual def
virtual proto
virtual call

@initialize:python@
@@
import os
AJ_LINE = int(os.environ.get("AJ_LINE") or 0)

def aj_at(p):
    return AJ_LINE == 0 or int(p[0].line) == AJ_LINE

@site_ternary depends on patch && site@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
expression E1, E2;
@@
fn(...) {
<...
- (<+... pred@p(...) ...+>) ? E1 : E2
+ param
...>
}

@site_ifelse depends on patch && site@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
expression X, E1, E2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>)
-	X = E1;
- else
-	X = E2;
+ X = param;
...>
}

@add_def depends on patch && def@
identifier virtual.fn;
identifier virtual.param;
parameter list ps;
type T;
@@
T fn(ps
+ , gfp_t param
 ) {...}

@add_proto depends on patch && proto@
identifier virtual.fn;
identifier virtual.param;
parameter list ps;
type T;
@@
T fn(ps
+ , gfp_t param
 );

@add_arg depends on patch && call@
identifier virtual.fn;
identifier virtual.caller;
identifier virtual.value;
position p : script:python() { aj_at(p) };
expression list es;
@@
caller(...) {
<...
 fn@p(es
+ , value
 )
...>
}
