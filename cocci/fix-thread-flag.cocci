// SPDX-License-Identifier: GPL-2.0-only
/// Make the caller say which context it runs in: thread a bool parameter param
/// into function fn, replace its context-guessing test by param (or !param), and pass
/// each caller's own answer (value: true, false or its own flag) at each call.
//# Instantiated once per step: -D site replaces the test at $AJ_LINE in fn,
//# -D def adds the parameter to the definition of fn, -D proto to a prototype,
//# -D call appends value to the call of fn in function caller at $AJ_LINE.
//# -D sleep_when_true: the test was true when the code may sleep.
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
virtual sleep_when_true

@initialize:python@
@@
import os
AJ_LINE = int(os.environ.get("AJ_LINE") or 0)

def aj_at(p):
    return AJ_LINE == 0 or int(p[0].line) == AJ_LINE

@site_neg_if_else depends on patch && site && !sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
statement S1, S2;
@@
fn(...) {
<...
  if (
- <+... pred@p(...) ...+>
+ !param
  ) S1 else S2
...>
}

@site_neg_if depends on patch && site && !sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
  if (
- <+... pred@p(...) ...+>
+ !param
  ) S1
...>
}

@site_neg_while depends on patch && site && !sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
  while (
- <+... pred@p(...) ...+>
+ !param
  ) S1
...>
}

@site_neg_ternary depends on patch && site && !sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
expression E1, E2;
@@
fn(...) {
<...
- (<+... pred@p(...) ...+>) ? E1 : E2
+ !param ? E1 : E2
...>
}

@site_pos_if_else depends on patch && site && sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
statement S1, S2;
@@
fn(...) {
<...
  if (
- <+... pred@p(...) ...+>
+ param
  ) S1 else S2
...>
}

@site_pos_if depends on patch && site && sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
  if (
- <+... pred@p(...) ...+>
+ param
  ) S1
...>
}

@site_pos_while depends on patch && site && sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
statement S1;
@@
fn(...) {
<...
  while (
- <+... pred@p(...) ...+>
+ param
  ) S1
...>
}

@site_pos_ternary depends on patch && site && sleep_when_true@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.param;
position p : script:python() { aj_at(p) };
expression E1, E2;
@@
fn(...) {
<...
- (<+... pred@p(...) ...+>) ? E1 : E2
+ param ? E1 : E2
...>
}

@add_def depends on patch && def@
identifier virtual.fn;
identifier virtual.param;
parameter list ps;
type T;
@@
T fn(ps
+ , bool param
 ) {...}

@add_proto depends on patch && proto@
identifier virtual.fn;
identifier virtual.param;
parameter list ps;
type T;
@@
T fn(ps
+ , bool param
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
