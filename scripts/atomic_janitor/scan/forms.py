"""Name the form of a use (DESIGN 4) from the constructs spatch found around it.

spatch reports the construct (ternary, if/else, assignment, return, call argument, and what
a stored answer is later used for); this module only reads the branch texts spatch printed.
"""

import re

ASSERT_CALLS = re.compile(r"^(\w*_check|RCU_LOCKDEP_WARN|rcu_dereference\w*|rcu_access_pointer|WARN_ON_IRQS_ENABLED|\w*lockdep\w*|WARN(_ON)?(_ONCE)?|WARN_ON_SMP|BUG(_ON)?|VM_BUG_ON\w*|VM_WARN_ON\w*|"
                          r"BUILD_BUG_ON\w*|might_sleep_if|lockdep_assert\w*|RWARN_ON\w*|"
                          r"drm_WARN(_ON)?(_ONCE)?|GEM_BUG_ON|GEM_WARN_ON|assert\w*|ASSERT\w*)$")
TRANSPARENT_CALLS = {"likely", "unlikely", "WARN_ON_ONCE_NOTRACE", "READ_ONCE", "!!"}
SLEEP_CALLS = re.compile(r"^(msleep\w*|ssleep|usleep_range\w*|fsleep|schedule\w*|cond_resched\w*|might_sleep|"
                         r"mutex_lock\w*|down|down_(read|write|interruptible|killable|timeout)\w*|"
                         r"wait_event\w*|wait_for_completion\w*|wait_on_bit\w*|flush_\w*work\w*|"
                         r"synchronize_\w+|vmalloc\w*|vzalloc\w*|kthread_\w+|drm_modeset_lock\w*|"
                         r"copy_(to|from)_user|get_user|put_user|request_firmware\w*|usb_\w*msg|"
                         r"sleep_on\w*|usleep\w*|schedule_timeout\w*|wait_\w+)$")
BUSY_CALLS = re.compile(r"^(udelay|mdelay|ndelay|cpu_relax|__delay|touch_nmi_watchdog|barrier|"
                        r"read_poll_timeout_atomic|readx_poll_timeout_atomic|\w+_poll_timeout_atomic)$")
LOCK_CALLS = re.compile(r"^(spin_(try)?lock\w*|raw_spin_(try)?lock\w*|mutex_(try)?lock\w*|down_trylock|"
                        r"(read|write)_(try)?lock\w*|\w+_trylock\w*|\w+_lock_irqsave|"
                        r"\w*_(un)?lock(_\w+)?|up|up_(read|write))$")
DEFER_CALLS = re.compile(r"^(queue_\w*work\w*|schedule_\w*work\w*|mod_delayed_work\w*|tasklet_\w*schedule|"
                         r"irq_work_queue\w*|call_rcu\w*|kthread_queue_\w*work)$")
GFP = re.compile(r"\b(__)?GFP_[A-Z_]+\b")
RETURN = re.compile(r"^\{?\s*(.*;\s*)?return\b")


# A wrapper's value is the answer alone: predicate calls, operators, constants; no other call.
_CONST = re.compile(r"^(true|false|NULL|\d+[uUlL]*|0x[0-9a-fA-F]+|(__)?GFP_[A-Z_]+|[A-Z][A-Z0-9_]*)$")
_OPS = {"(", ")", "!", "||", "&&", "?", ":", "|", "&", "==", "!="}
WELL_DEFINED = re.compile(r"\b(system_state|oops_in_progress|panic_in_progress|kgdb_active|"
                          r"early_boot_irqs_disabled|SYSTEM_RUNNING)\b")


def tokens(text):
    """C text -> spatch-like token-spaced text."""
    return " ".join(re.findall(r"\w+|\|\||&&|==|!=|->|\S", text or ""))


def pure_condition(cond, called):
    """Is `cond` (token-spaced) built only from `called()`, other zero-argument predicates,
    operators and constants? Such an expression returned or #defined is a wrapper."""
    if not cond or WELL_DEFINED.search(cond):
        return False
    toks = cond.split()
    i = 0
    while i < len(toks):
        tok = toks[i]
        if re.match(r"^[A-Za-z_]\w*$", tok) and i + 2 < len(toks) + 1 and toks[i + 1:i + 3] == ["(", ")"]:
            i += 3          # a zero-argument call: a predicate or another wrapper
            continue
        if tok in ("likely", "unlikely") and i + 1 < len(toks) and toks[i + 1] == "(":
            i += 1
            continue
        if tok in _OPS or _CONST.match(tok):
            i += 1
            continue
        return False
    return called in toks


def _calls(text):
    return re.findall(r"([A-Za-z_]\w*)\s*\(", text or "")


def _branch_facts(text):
    calls = _calls(text)
    return {
        "calls": sorted(set(calls)),
        "gfp": sorted(set(m.group(0) for m in GFP.finditer(text or ""))),
        "sleeps": sorted({c for c in calls if SLEEP_CALLS.match(c)}),
        "busy": sorted({c for c in calls if BUSY_CALLS.match(c)}),
        "locks": sorted({c for c in calls if LOCK_CALLS.match(c)}),
        "defers": sorted({c for c in calls if DEFER_CALLS.match(c)}),
        "returns": bool(re.search(r"\breturn\b", text or "")),
        "only_return": bool(text) and bool(re.match(r"^\{?\s*return\b[^;]*;\s*\}?$", text.strip())),
    }


def negated(cond, called):
    """Is the call's answer negated in `cond` (spatch's token-spaced text)?"""
    toks = (cond or "").split()
    for i, tok in enumerate(toks):
        if tok == called and i > 0 and toks[i - 1] == "!":
            return True
    if len(toks) > 2 and toks[0] == "!" and toks[1] == "(" and _closes_at_end(toks[1:]):
        return True
    return False


def _closes_at_end(toks):
    depth = 0
    for i, tok in enumerate(toks):
        depth += tok == "("
        depth -= tok == ")"
        if depth == 0:
            return i == len(toks) - 1
    return False


def _decide(kind, cond, then, other, callee=None, atomic_when_true=True):
    """Form for one construct (ternary, if, call-arg), or None when it says nothing."""
    if kind == "call-arg":
        if callee and ASSERT_CALLS.match(callee):
            return "assertion"
        return None
    t, o = _branch_facts(then), _branch_facts(other)
    if t["gfp"] or o["gfp"]:
        return "gfp-select"
    if kind == "ternary":
        if (t["busy"] or o["busy"]) and (t["sleeps"] or o["sleeps"] or t["calls"] or o["calls"]):
            return "delay-select"
        if t["locks"] or o["locks"]:
            return "lock-select"
        return None
    # if / if-else: which branch runs when the answer says "atomic"?
    atomic_b, sleep_b = (t, o) if atomic_when_true else (o, t)
    atomic_text = then if atomic_when_true else other
    if (t["busy"] and o["sleeps"]) or (o["busy"] and t["sleeps"]):
        return "delay-select"
    only_locking = lambda b: b["locks"] and set(b["sleeps"]) <= set(b["locks"])
    if (t["locks"] and o["locks"]) or only_locking(t) or only_locking(o):
        return "lock-select"
    if atomic_text is not None and atomic_b["returns"] and (other is None or not sleep_b["returns"]):
        return "bail-out"
    if sleep_b["sleeps"] or atomic_b["defers"]:
        return "sleep-guard"
    if t["busy"] or o["busy"]:
        return "delay-select"
    if t["locks"] or o["locks"]:
        return "lock-select"
    if t["returns"]:
        return "bail-out"
    if t["sleeps"] or o["sleeps"]:
        return "sleep-guard"
    return None


def classify(constructs, is_wrapper=False, assert_macro=False, called=None, atomic_when_true=True,
             macro_body=None):
    """(form, detail) for one use, given its construct records (as spatch emitted them)."""
    if assert_macro:
        return "assertion", {"construct": "macro-arg"}
    if is_wrapper:
        return "wrapper", {"construct": "return"}
    by_kind = {}
    for c in constructs:
        by_kind.setdefault(c["kind"], []).append(c)
    detail = {}
    # Innermost decision first: a call argument of an assertion, then ternary, then if.
    for c in by_kind.get("call-arg", []):
        callee = c.get("callee")
        if callee in TRANSPARENT_CALLS:
            continue
        form = _decide("call-arg", c.get("cond"), None, None, callee)
        if form:
            return form, {"construct": "call-arg", "callee": callee}
    for kind in ("ternary", "if"):
        for c in by_kind.get(kind, []):
            awt = atomic_when_true != negated(c.get("cond"), called)
            form = _decide(kind, c.get("cond"), c.get("then"), c.get("other"), atomic_when_true=awt)
            construct = kind if kind == "ternary" else ("if-else" if c.get("other") is not None else "if")
            detail = {"construct": construct,
                      "branches": [_summary(_branch_facts(c.get("then"))), _summary(_branch_facts(c.get("other")))]}
            if form:
                return form, detail
    assigns = by_kind.get("assign", [])
    if assigns:
        var = assigns[0].get("var")
        stored_awt = atomic_when_true != negated(assigns[0].get("cond"), called)
        for kind in ("var-ternary", "var-if", "var-call-arg"):
            for c in by_kind.get(kind, []):
                if kind == "var-call-arg" and c.get("callee") in TRANSPARENT_CALLS:
                    continue
                base = kind[4:]
                awt = stored_awt != negated(c.get("cond"), var)
                form = _decide(base, c.get("cond"), c.get("then"), c.get("other"), c.get("callee"), awt)
                if form:
                    d = {"construct": "assign", "variable": var, "used_at": c.get("at")}
                    if base == "call-arg":
                        d["callee"] = c.get("callee")
                    else:
                        d["branches"] = [_summary(_branch_facts(c.get("then"))),
                                         _summary(_branch_facts(c.get("other")))]
                    return form, d
        return "other", {"construct": "assign", "variable": var}
    if by_kind.get("return"):
        return "other", {"construct": "return"}
    if macro_body is not None and not constructs:
        # spatch does not parse statement-expression macro bodies: read the body itself.
        f = _branch_facts(macro_body)
        form = ("gfp-select" if f["gfp"] else "delay-select" if f["busy"] and f["sleeps"] else
                "lock-select" if f["locks"] else "sleep-guard" if f["sleeps"] or f["defers"] else
                "bail-out" if f["returns"] else None)
        if form:
            return form, {"construct": "macro-body", "branches": [_summary(f)]}
    if by_kind.get("call-arg"):
        return "other", {"construct": "call-arg", "callee": by_kind["call-arg"][0].get("callee")}
    return "other", detail or {"construct": "expression"}


def _summary(facts):
    return {k: facts[k] for k in ("gfp", "sleeps", "busy", "locks", "defers", "returns")}
