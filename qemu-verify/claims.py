"""The claims of a series (its index.json: class and function of each patched site) held
against the contexts that the recorder (modules/aj_ctx.c) saw in the guest.

- sleepable-proven: the patch lets the function sleep, so a hit in atomic context (task
  with preemption, bh or IRQs off, an RCU reader, softirq, hardirq, NMI) fails verify;
- atomic-proven: a hit where the function could have slept is a proof error (the patch is
  harmless there, but its message states a context the code does not have): it fails too;
- caller-gfp, caller-flag: the caller passes its context, so both kinds of hit are right;
  CONFIG_DEBUG_ATOMIC_SLEEP (the splat stage) checks the sleeping calls on the atomic ones;
- assertion, well-defined-condition: the assertion itself is the check (the splat stage).
Hits the recorder could not read ("unknown") prove nothing either way and are reported."""
import json
import os
from typing import Dict, List, Optional

ATOMIC_KINDS = ("task_atomic", "softirq", "hardirq", "nmi")
INDEX = "index.json"


def load(series: str) -> Dict[str, List[dict]]:
    """patch file (relative to the series directory) -> [{"class", "function", "site"}].
    Empty for a series without index.json (a series not written by make patches)."""
    path = os.path.join(series, INDEX) if os.path.isdir(series) else None
    if not path or not os.path.isfile(path):
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        entries = doc["patches"].values()
    except (OSError, ValueError, KeyError, AttributeError):
        return {}
    out: Dict[str, List[dict]] = {}
    for e in entries:
        if isinstance(e, dict) and e.get("file") and e.get("class") and e.get("function"):
            c = {"class": e["class"], "function": e["function"], "site": e.get("site"),
                 "live_bug": e.get("live_bug"), "region": bool(e.get("region"))}
            if c not in out.setdefault(e["file"], []):
                out[e["file"]].append(c)
    for v in out.values():
        v.sort(key=lambda c: (c["function"], c["site"] or "", c["class"]))
    return out


def describe(rec: Optional[dict]) -> str:
    if not rec or not rec.get("hits"):
        return "0 hits"
    parts = [f"{rec[k]} {k.replace('_', '-')}" for k in ("sleepable", *ATOMIC_KINDS, "unknown")
             if rec.get(k)]
    flags = [f"{rec[k]} with {k.replace('_', ' ')}" for k in ("irqs_off", "preempt_off",
                                                                "bh_off") if rec.get(k)]
    if rec.get("rcu"):
        flags.append(f"{rec['rcu']} in an RCU reader")
    return f"{rec['hits']} hit(s): " + ", ".join(parts) + (f" ({', '.join(flags)})" if flags else "")


def check(cls: Optional[str], rec: Optional[dict], region: bool = False) -> (str, str):
    """(status, why) for one function: status is ok, violated, proof-error, recorded (no
    per-hit claim) or not-executed. region: the proof rests on a lock or IRQs-off region
    inside the function, so its entry (what the probe sees) is not the site's context."""
    if not rec or not rec.get("hits"):
        return "not-executed", ""
    if region and cls == "atomic-proven":
        return "recorded", "the atomic region is inside the function, past the probed entry"
    atomic = sum(rec.get(k, 0) for k in ATOMIC_KINDS)
    callers = rec.get("callers", {})
    if cls == "sleepable-proven" and atomic:
        first = next((callers[k] for k in ATOMIC_KINDS if k in callers), "?")
        return "violated", (f"claimed sleepable, ran {atomic} time(s) in atomic context "
                            f"(first from {first})")
    if cls == "atomic-proven" and rec.get("sleepable"):
        return "proof-error", (f"claimed atomic, ran {rec['sleepable']} time(s) where it could "
                               f"sleep (first from {callers.get('sleepable', '?')})")
    if cls in ("sleepable-proven", "atomic-proven"):
        if rec.get("unknown") and rec["unknown"] == rec["hits"]:
            return "recorded", "no hit had a readable context"
        return "ok", f"every readable hit matches {cls}"
    return "recorded", ("the caller passes the context" if cls in ("caller-gfp", "caller-flag")
                        else "the assertion checks itself" if cls == "assertion" else
                        "no per-hit claim")
