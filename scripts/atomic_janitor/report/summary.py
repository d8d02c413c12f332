"""summary.txt: coccicheck-style lines, then counts by form, class and top-level directory."""

from collections import Counter


def message(rec):
    via = " via " + " -> ".join(rec["via"]) if len(rec["via"]) > 1 else ""
    where = rec["function"] and f"{rec['function']}()" or rec["macro"] and f"macro {rec['macro']}" or "file scope"
    msg = f"{rec['called']}(){via} in {where}: {rec['form']} [{rec['class']}]"
    if rec.get("live_bug"):
        msg = f"LIVE BUG ({rec['live_bug']['when']}): " + msg
    if rec.get("baseline_state") == "new":
        msg = "[new] " + msg
    if rec.get("reason"):
        msg += f": {rec['reason']}"
    return msg


def when_text(lb):
    return "on every kernel" if lb["when"] == "always" else "on kernels without CONFIG_PREEMPT_COUNT"


def live_bug_lines(recs):
    """Each live bug with its path: first in summary.txt, and what LIVE_BUGS=only prints."""
    out = []
    for r in recs:
        lb = r.get("live_bug")
        if not lb:
            continue
        out.append(f"{r['file']}:{r['line']}: {r['function']}(): {r['expression']} takes the sleeping "
                   f"branch on an atomic path {when_text(lb)}: {lb['sleeps']}")
        out += [f"    {step}" for step in lb["path"]]
    return out


def _table(title, counter):
    if not counter:
        return []
    width = max(len(k) for k in counter)
    out = [title]
    for key, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"  {key.ljust(width)}  {n:5d}")
    return out


def render(doc):
    tree = doc["tree"]
    recs = doc["findings"]
    out = [f"atomic-janitor scan of {tree['name']}" + (f" ({tree['version']})" if tree["version"] else ""),
           f"predicates: {', '.join(doc['predicates'])}; scope: {' '.join(doc['scope'])}",
           f"{len(recs)} finding(s), {len(doc['wrappers'])} wrapper(s), "
           f"{len(doc['not_analysed'])} not analysed",
           "exported symbols: " + ("their in-tree callers are all the callers (whole kernel tree)"
                                   if tree["kind"] == "kernel" else
                                   "callers unknown (module directory: callers may be outside it)"), ""]
    bugs = live_bug_lines(recs)
    if bugs:
        out += [f"live bugs: {sum(1 for r in recs if r.get('live_bug'))} (sleeping in atomic context today)", *bugs, ""]
    for rec in sorted(recs, key=lambda r: not r.get("live_bug")):
        out.append(f"{rec['file']}:{rec['line']}:{rec['col']}-{rec['colend']}: {message(rec)}")
    if doc.get("baseline"):
        b = doc["baseline"]
        new = sum(1 for r in recs if r.get("baseline_state") == "new")
        out += ["", f"since the {b['against']}: {new} new, {len(b['gone'])} gone, {len(recs) - new} unchanged"]
        out += [f"  gone: {g['file']}:{g['line']}: {g['function']}(): {g['expression']} ({g['form']})"
                for g in b["gone"]]
    if recs:
        out.append("")
        out += _table("by form:", Counter(r["form"] for r in recs))
        out += _table("by class:", Counter(r["class"] for r in recs))
        out += _table("by top-level directory:", Counter(r["file"].split("/")[0] for r in recs))
        out += _table("by subsystem:", Counter(r["subsystem"] for r in recs))
        out += _table("by form and class:", Counter(f"{r['form']} / {r['class']}" for r in recs))
    if doc["wrappers"]:
        out += ["", "wrappers:"]
        for w in doc["wrappers"]:
            kind = "asserting macro" if w["asserts"] else w["kind"]
            out.append(f"  {w['name']} ({kind}, {w['file']}:{w['line']}): {' -> '.join(w['via'])}")
    if doc["not_analysed"]:
        out += ["", "not analysed:"]
        for na in doc["not_analysed"]:
            loc = f"{na['file']}:{na['line']}" if na["line"] else na["file"]
            out.append(f"  {loc}: {na['reason']}")
    return "\n".join(out) + "\n"
