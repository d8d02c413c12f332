// SPDX-License-Identifier: GPL-2.0-only
/// Remove a context-guessing test (in_atomic(), in_interrupt(), drm_can_sleep(),
/// ...) in function fn whose answer is known: keep only the branch that runs in
/// the proven context, optionally with might_sleep() where the test was.
//# Only correct when every path to fn was proven sleepable (keep the sleeping
//# branch) or atomic (keep the atomic branch). atomic-janitor works out which
//# branch of the if/ternary that is and passes it as keep_then or keep_else;
//# fn and pred come with -D, the line of the site in $AJ_LINE. With usleep the kept
//# branch is `msleep(N);` with N < 20, which becomes usleep_range(lo, hi) (-D lo, hi):
//# checkpatch's "msleep < 20ms can sleep for up to 20ms" (timers-howto.rst) would
//# otherwise flag the line the patch moves.
///
// Confidence: High
// Copyright: (C) 2026 atomic-janitor contributors
// Comments: instantiated per finding by scripts/atomic_janitor/patches/fix.py
// Options: --no-includes --include-headers

virtual patch
virtual keep_then
virtual keep_else
virtual might
virtual usleep

@initialize:python@
@@
import os
AJ_LINE = int(os.environ.get("AJ_LINE") or 0)

def aj_at(p):
    return AJ_LINE == 0 or int(p[0].line) == AJ_LINE

@then_block_else depends on patch && keep_then && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement list SL;
statement S2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) { SL } else S2
+ SL
...>
}

@then_block_else_might depends on patch && keep_then && might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement list SL;
statement S2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) { SL } else S2
+ might_sleep();
+ SL
...>
}

@then_else depends on patch && keep_then && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1, S2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1 else S2
+ S1
...>
}

@then_else_might depends on patch && keep_then && might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1, S2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1 else S2
+ might_sleep();
+ S1
...>
}

@then_block depends on patch && keep_then && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement list SL;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) { SL }
+ SL
...>
}

@then_block_might depends on patch && keep_then && might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement list SL;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) { SL }
+ might_sleep();
+ SL
...>
}

@then_only depends on patch && keep_then && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>)
  S1
...>
}

@then_only_might depends on patch && keep_then && might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
+ might_sleep();
- if (<+... pred@p(...) ...+>)
  S1
...>
}

@else_block depends on patch && keep_else && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement list SL;
statement S1;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1 else { SL }
+ SL
...>
}

@else_block_might depends on patch && keep_else && might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement list SL;
statement S1;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1 else { SL }
+ might_sleep();
+ SL
...>
}

@else_stmt depends on patch && keep_else && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1, S2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1 else S2
+ S2
...>
}

@else_stmt_might depends on patch && keep_else && might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1, S2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1 else S2
+ might_sleep();
+ S2
...>
}

@else_none depends on patch && keep_else && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1
...>
}

@else_none_might depends on patch && keep_else && might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1
+ might_sleep();
...>
}

@ternary_then depends on patch && keep_then && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
expression E1, E2;
@@
fn(...) {
<...
- (<+... pred@p(...) ...+>) ? E1 : E2
+ E1
...>
}

@ternary_else depends on patch && keep_else && !might && !usleep@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
expression E1, E2;
@@
fn(...) {
<...
- (<+... pred@p(...) ...+>) ? E1 : E2
+ E2
...>
}

// The kept branch is a short msleep(): usleep_range(), as timers-howto.rst asks.

@then_usleep depends on patch && keep_then && usleep@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.lo, virtual.hi;
position p : script:python() { aj_at(p) };
constant C;
statement S2;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) msleep(C); else S2
+ might_sleep();
+ usleep_range(lo, hi);
...>
}

@else_usleep depends on patch && keep_else && usleep@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.lo, virtual.hi;
position p : script:python() { aj_at(p) };
constant C;
statement S1;
@@
fn(...) {
<...
- if (<+... pred@p(...) ...+>) S1 else msleep(C);
+ might_sleep();
+ usleep_range(lo, hi);
...>
}
