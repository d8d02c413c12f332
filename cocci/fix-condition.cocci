// SPDX-License-Identifier: GPL-2.0-only
/// Replace a context guess in function fn by the condition the code really
/// means, one with a defined meaning (late shutdown polling, oops in progress,
/// kgdb, ...), as the i2c core did with i2c_in_atomic_xfer_mode().
//# The condition is a C expression, so the rule is instantiated by text: the
//# identifier AJ_CONDITION below is replaced by the condition (parenthesised)
//# before spatch runs; fn and pred come with -D, the line in $AJ_LINE. As a
//# plain rule (under coccicheck) it only rewrites to the token AJ_CONDITION.
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

@cond_if_else depends on patch@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1, S2;
@@
fn(...) {
<...
  if (
- <+... pred@p(...) ...+>
+ AJ_CONDITION
  ) S1 else S2
...>
}

@cond_if depends on patch@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
  if (
- <+... pred@p(...) ...+>
+ AJ_CONDITION
  ) S1
...>
}

@cond_while depends on patch@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
  while (
- <+... pred@p(...) ...+>
+ AJ_CONDITION
  ) S1
...>
}

@cond_ternary depends on patch@
identifier virtual.fn;
identifier virtual.pred;
position p : script:python() { aj_at(p) };
expression E1, E2;
@@
fn(...) {
<...
- (<+... pred@p(...) ...+>) ? E1 : E2
+ AJ_CONDITION ? E1 : E2
...>
}
