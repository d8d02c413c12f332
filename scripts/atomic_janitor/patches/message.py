"""Commit messages: what changed, why (fitted to the predicate), how the context was
established (the evidence chains), and how it was tested (only once verify has said so)."""

import re
import textwrap

WIDTH = 75

INTERRUPT_FAMILY = {"in_interrupt", "in_irq", "in_hardirq", "in_softirq", "in_serving_softirq"}

WHY = {
    "in_atomic": (
        "in_atomic() cannot tell whether the caller may sleep: on kernels without "
        "CONFIG_PREEMPT_COUNT spin_lock() does not touch the preempt count, so in_atomic() "
        "returns false while a spinlock is held. Its use outside of core kernel code is "
        "discouraged; the caller knows its context and has to say so."),
    "interrupt": (
        "{p} only reports whether the CPU is serving an interrupt; it never sees a held "
        "spinlock, disabled preemption or an RCU read-side section, on any configuration. "
        "So it cannot tell whether the code may sleep; the caller knows its context and has "
        "to say so."),
    "irqs_disabled": (
        "irqs_disabled() only reports that interrupts are off on this CPU; it does not see "
        "a held spinlock, disabled preemption or an RCU read-side section. So it cannot tell "
        "whether the code may sleep; the caller knows its context and has to say so."),
    "preemptible": (
        "preemptible() is constant false on kernels without CONFIG_PREEMPT_COUNT and does "
        "not see RCU read-side sections under PREEMPT_RCU. So it cannot tell whether the "
        "code may sleep; the caller knows its context and has to say so."),
    "in_task": (
        "in_task() is also true with a spinlock held or preemption disabled, so it does not "
        "mean that the code may sleep. The caller knows its context and has to say so."),
    "in_nmi": (
        "in_nmi() only reports NMI context and says nothing about locks held or preemption, "
        "so it cannot tell whether the code may sleep. The caller knows its context and has "
        "to say so."),
}


def why(predicates, called):
    """Two sentences per base predicate reached (in_atomic first), plus the wrapper note."""
    out = []
    if "in_atomic" in predicates:
        out.append(WHY["in_atomic"])
    fam = sorted(p for p in predicates if p in INTERRUPT_FAMILY)
    if fam:
        out.append(WHY["interrupt"].format(p=" and ".join(f"{p}()" for p in fam)))
    for p in ("irqs_disabled", "preemptible", "in_task", "in_nmi"):
        if p in predicates and "in_atomic" not in predicates:
            out.append(WHY[p])
    wrappers = sorted(c for c in called if c not in predicates)
    text = " ".join(out)
    if wrappers:
        text = (f"{' and '.join(w + '()' for w in wrappers)} is a wrapper around "
                f"{' and '.join(p + '()' for p in sorted(predicates))}, so the same applies to it. "
                + text)
    return text


def _ctx(fix, cls):
    return "atomic" if cls == "atomic-proven" or (fix.get("params") or {}).get("keep") == "atomic" else "sleepable"


def what(site):
    """One paragraph for one site (a finding, merged with its twins at the same place)."""
    f = site["finding"]
    fix = f["fix"]
    p = fix.get("params") or {}
    fn = p.get("function") or f["function"]
    called = " || ".join(sorted({c + "()" for c in site["called"]}))
    expr = f["expression"]
    s = fix["strategy"]
    if s == "gfp-constant":
        ctx = "atomic" if f["class"] == "atomic-proven" else "sleepable"
        return (f"{fn}() is only reached from {ctx} context (see below), so `{expr}` always "
                f"selects {p['gfp']} there. Use {p['gfp']} directly.")
    if s == "keep-branch":
        ctx = _ctx(fix, f["class"])
        branch = "sleeping" if p.get("keep") == "sleep" else "atomic"
        text = (f"{fn}() is only reached from {ctx} context (see below), so the `{expr}` test "
                f"always takes the same branch. Remove the test and keep the {branch} branch.")
        if p.get("might_sleep"):
            text += (" Add might_sleep() in its place, so that a caller in atomic context is "
                     "reported on kernels with CONFIG_DEBUG_ATOMIC_SLEEP.")
        for note in site.get("notes") or ():
            text += " " + note
        return text
    if s in ("thread-gfp", "thread-flag"):
        param = p.get("param") or ("gfp" if s == "thread-gfp" else "may_sleep")
        kind = "gfp_t" if s == "thread-gfp" else "bool"
        parts = []
        for c in p.get("callers") or []:
            if "pass" in c:
                v = f"its own {c['pass']}"
            elif s == "thread-gfp":
                v = c["gfp"]
            else:
                v = "true" if c["value"] else "false"
            parts.append(f"{c['function']}() passes {v}")
        if p.get("reuse"):
            text = (f"{fn}() already has a {kind} {param} argument: use it instead of "
                    f"`{expr}`.")
        else:
            what_ = "the GFP flags for its context" if s == "thread-gfp" else (
                "whether it may sleep" if p.get("param_means") != "atomic" else "whether it runs in atomic context")
            text = (f"Add a {kind} {param} argument to {fn}() and let every caller pass "
                    f"{what_}, instead of guessing it with `{expr}`.")
        if parts:
            text += " " + _join(parts) + "."
        return text
    if s == "assert-replace":
        w = p["with"]
        if w.startswith("might_sleep"):
            return (f"Replace the `{expr}` assertion in {fn}() with {w}, which states the same "
                    f"invariant and is checked on every configuration with CONFIG_DEBUG_ATOMIC_SLEEP.")
        return _lockdep_paragraph(fn + "()", expr, w, (f.get("form_detail") or {}).get("callee") or "WARN_ON")
    if s == "condition":
        return (f"Replace `{expr}` in {fn}() with `{p['condition']}`, the condition the "
                f"code actually means.")
    return f"Fix the use of {called} in {fn}()."


# How often the replaced check reported (include/asm-generic/bug.h), against lockdep's
# assertions, which are WARN_ON_ONCE() (include/linux/lockdep.h).
_OLD_REPORTS = {"WARN_ON": "warned every time", "WARN": "warned every time",
                "WARN_ON_ONCE": None, "WARN_ONCE": None, "BUG_ON": "stopped the kernel",
                "BUG": "stopped the kernel"}


def _lockdep_paragraph(fns, expr, w, check):
    """What an assertion swap changes, said in one paragraph (issue 13), for the functions
    `fns` ("a() and b()"): the facts are those of 6.1's include/linux/lockdep.h."""
    name = w.rstrip("()")
    gates = "CONFIG_PROVE_LOCKING"
    if name.startswith("lockdep_assert_preemption"):
        gates += " and CONFIG_PREEMPT_COUNT"
    old = _OLD_REPORTS.get(check, f"reported as {check}() does")
    once = (f"it warns once per call site, where {check}() {old}" if old
            else f"it warns once, as {check}() did")
    return (f"Use {w} in {fns} instead of the open-coded `{check}({expr})`. It tests the "
            f"same condition against lockdep's tracking of the irq state (the view lockdep "
            f"keeps on every configuration, PREEMPT_RT included) and costs nothing in "
            f"production builds. What changes: the check now runs only on kernels with "
            f"{gates} and is silent otherwise, {once}, and it stops checking after lockdep "
            f"has reported its first problem.")


def condition_why(cond):
    if "system_state" in cond:
        return ("The polling path is only needed for transfers in the late shutdown or "
                "reboot path, when the system has left SYSTEM_RUNNING and interrupts are "
                "disabled; that condition has a defined meaning on every configuration. The "
                "i2c core made the same change in \"i2c: core: remove use of in_atomic()\".")
    return ("The code needs a condition with a defined meaning on every configuration, not "
            "a guess at its calling context.")


def _join(parts):
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def evidence_lines(findings):
    """`file:function(): fact` bullets, wrapped at 75 columns, duplicates dropped."""
    seen = set()
    out = []
    for f in findings:
        for e in f.get("evidence") or []:
            where = f"{e['file']}:{e['function']}()" if e.get("function") else f"{e['file']}:{e['line']}"
            fact = re.sub(r"\s+", " ", e.get("fact", "")).strip()
            key = (where, fact)
            if key in seen:
                continue
            seen.add(key)
            out.append(textwrap.fill(f"{where}: {fact}", WIDTH, initial_indent="  ",
                                     subsequent_indent="    ", break_on_hyphens=False,
                                     break_long_words=False))
    return out


def fill(text):
    return textwrap.fill(text, WIDTH, break_on_hyphens=False, break_long_words=False)


def tested_line(verify_patch):
    if not verify_patch:
        return None
    v = verify_patch.get("verdict")
    if v == "tested":
        n = verify_patch.get("executed")
        return fill("Tested in QEMU (x86_64 tinyconfig, PREEMPT, DEBUG_ATOMIC_SLEEP, "
                    "PROVE_LOCKING): i2c-stub and recording-adapter tests pass, patched code "
                    f"executed {n} times.")
    if v == "compile-tested-only":
        return "Compile-tested only (W=1, x86_64)."
    return None


def _same_condition(site):
    """An assertion replaced by the lockdep assertion of the same condition: true whatever
    the context, so it needs no proof (and has no chain to show)."""
    fix = site["finding"]["fix"]
    return fix["strategy"] == "assert-replace" and (fix.get("params") or {}).get("with", "").startswith("lockdep_")


# Jonathan Corbet, "Atomic context and kernel API design" (LWN, 2008): why in_atomic() in
# drivers is wrong; include/linux/preempt.h's comment on in_atomic() cites it too.
ARTICLE = "https://lwn.net/Articles/274695/"


def guesses(sites):
    """The sites whose patch removes a guess (not a same-condition assertion swap)."""
    return [s for s in sites if s["finding"]["fix"]["strategy"] != "condition" and not _same_condition(s)]


def body(sites, verify_patch=None, signoff=None, link=False, fixes=()):
    """The commit message body (without the Subject line). link: this patch carries the
    series' one Link: to the article behind the reasoning; fixes: its Fixes: lines."""
    paras = []
    swaps = {}          # one paragraph for the same swap in several functions
    for s in sites:
        if _same_condition(s):
            f = s["finding"]
            key = (f["fix"]["params"]["with"], (f.get("form_detail") or {}).get("callee") or "WARN_ON",
                   f["expression"])
            fn = f["fix"]["params"].get("function") or f["function"]
            if key not in swaps:
                swaps[key] = [fn]
                paras.append(key)
            elif fn not in swaps[key]:
                swaps[key].append(fn)
        elif fill(what(s)) not in paras:
            paras.append(fill(what(s)))     # two sites of one function: one paragraph
    paras = [fill(_lockdep_paragraph(_join([f + "()" for f in swaps[p]]), p[2], p[0], p[1]))
             if isinstance(p, tuple) else p for p in paras]
    # A defined condition gets its own why below; a same-condition assertion needs none.
    guessing = guesses(sites)
    preds = sorted({p for s in guessing for p in s["predicates"]})
    called = sorted({c for s in guessing for c in s["called"]})
    if preds:
        paras.append(fill(why(set(preds), called)))
    for s in sites:
        if s["finding"]["fix"]["strategy"] == "condition":
            paras.append(fill(why(set(s["predicates"]), sorted(s["called"])) + " " +
                              condition_why(s["finding"]["fix"]["params"]["condition"])))
    proof = [s for s in sites if not _same_condition(s)]
    ev = evidence_lines([s["finding"] for s in proof])
    if ev:
        paras.append("How the context was established:\n\n" + "\n".join(ev))
    if len(proof) < len(sites):
        paras.append(fill("No calling context had to be established for the assertion"
                          + ("s" if len(sites) - len(proof) > 1 else "") + ": the lockdep "
                          "assertion tests the same condition wherever it is reached."))
    bugs = [s for s in sites if s["finding"].get("live_bug")]
    paras[:0] = [live_bug_paragraph(s["finding"]) for s in bugs]
    t = tested_line(verify_patch)
    if t:
        paras.append(t)
    text = "\n\n".join(paras) + "\n"
    trailers = list(fixes) + ([f"Link: {ARTICLE}"] if link else [])
    if bugs:
        # Documentation/process/stable-kernel-rules.rst: a fix for a real bug, Cc stable.
        # Fixes: needs the commit that brought the test in, which only a git checkout has;
        # the cover letter says so when it is left out.
        trailers.append("Cc: stable@vger.kernel.org")
    if signoff:
        trailers.append(f"Signed-off-by: {signoff}")
    if trailers:
        text += "\n" + "\n".join(trailers) + "\n"
    return text


def live_bug_paragraph(f):
    """The bug first: what the guess gets wrong, where, on which kernels, and the path."""
    lb = f["live_bug"]
    cfg = ("on every kernel" if lb["when"] == "always"
           else "on kernels without CONFIG_PREEMPT_COUNT, where a spinlock does not raise the preempt count")
    where, call = lb["sleeps"].split(" ", 1)
    does = f"allocates with {call}" if call.startswith("GFP_") else f"calls {call}"
    head = fill(f"{f['function']}() sleeps in atomic context: on the path below `{f['expression']}` "
                f"takes the sleeping branch {cfg}, and that branch {does} ({where}).")
    steps = [textwrap.fill(step, WIDTH, initial_indent="  ", subsequent_indent="    ",
                           break_on_hyphens=False, break_long_words=False) for step in lb["path"]]
    return head + "\n\n" + "\n".join(steps)


def subject(prefix, sites):
    bugs = sorted({s["finding"]["function"] for s in sites if s["finding"].get("live_bug")})
    if bugs:
        return f"{prefix}: Fix sleeping in atomic context in {bugs[0]}()"
    called = sorted({c for s in sites for c in s["called"]})
    strategies = {s["finding"]["fix"]["strategy"] for s in sites}
    swaps = {(s["finding"]["fix"].get("params") or {}).get("with", "") for s in sites}
    if strategies == {"assert-replace"} and len(swaps) == 1 and next(iter(swaps)).startswith("lockdep_"):
        return f"{prefix}: Use {next(iter(swaps))}"     # names the change, not what goes
    verb = "Remove" if strategies <= {"gfp-constant", "keep-branch"} else "Replace"
    called.sort(key=lambda c: (c != "in_atomic", c))   # name the one the site is known for
    names = f"{called[0]}()"
    return f"{prefix}: {verb} {names} usage"
