// SPDX-License-Identifier: GPL-2.0-only
/// Replace an assertion built on a context-guessing predicate, such as
/// WARN_ON(in_atomic()), by the assertion that states the same invariant on
/// every configuration (with, e.g. might_sleep or lockdep_assert_irqs_disabled).
//# Only where the replacement is exactly equivalent; atomic-janitor passes fn,
//# pred and with (the name of the argument-less assertion) with -D and the
//# line of the site in $AJ_LINE.
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

@replace depends on patch@
identifier virtual.fn;
identifier virtual.pred;
identifier virtual.with;
position p : script:python() { aj_at(p) };
@@
fn(...) {
<...
(
- WARN_ON(<+... pred@p(...) ...+>);
+ with();
|
- WARN_ON_ONCE(<+... pred@p(...) ...+>);
+ with();
|
- BUG_ON(<+... pred@p(...) ...+>);
+ with();
)
...>
}
