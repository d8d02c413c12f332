// SPDX-License-Identifier: GPL-2.0-only
/// Replace a context-guessing GFP selector (in_atomic() ? GFP_ATOMIC : GFP_KERNEL
/// and its spellings) in function fn by the one flag that is right for the
/// context every caller of fn was proven to run in.
//# Only correct when every path to fn was proven to be sleepable (or atomic);
//# atomic-janitor passes fn, pred (the predicate or wrapper called at the site)
//# and gfp (the flag to keep) with -D, and the line of the site in $AJ_LINE.
///
// Confidence: High
// Copyright: (C) 2026 atomic-janitor contributors
// Comments: instantiated per finding by scripts/atomic_janitor/patches/fix.py
// Options: --no-includes --include-headers

virtual patch

@initialize:python@
@@
import os
AJ_LINE = int(os.environ.get("AJ_LINE") or 0)

def aj_at(p):
    return AJ_LINE == 0 or int(p[0].line) == AJ_LINE

@ternary depends on patch@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.gfp;
position p : script:python() { aj_at(p) };
expression E1, E2;
@@
fn(...) {
<...
- (<+... pred@p(...) ...+>) ? E1 : E2
+ gfp
...>
}

@ifelse depends on patch@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.gfp;
position p : script:python() { aj_at(p) };
expression X, E1, E2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>)
-	X = E1;
- else
-	X = E2;
+ X = gfp;
...>
}
