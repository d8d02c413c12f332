"""index.html: one self-contained page a person reads in a browser. Totals per class, live bugs
first, a table that filters by class, predicate and subsystem and sorts by column, then each
finding with its source, its fix in words (linked to its patch once `make patches` wrote it)
and its evidence chain, collapsed."""

from collections import Counter
from html import escape

from .html_assets import SCRIPT, STYLE
from .summary import message, when_text

FILTERS = (("class", "class"), ("predicate", "predicate"), ("subsystem", "subsystem"))


def fix_text(fix):
    """The fix in a sentence, from the `fix` record (docs/fix-strategies.md)."""
    p = fix.get("params") or {}
    fn = p.get("function")
    s = fix.get("strategy")
    if s == "gfp-constant":
        return f"the selector becomes {p.get('gfp')}"
    if s == "keep-branch":
        extra = ", with might_sleep() where the test was" if p.get("might_sleep") else ""
        return f"the test goes; the {p.get('keep')} branch stays{extra}"
    if s in ("thread-gfp", "thread-flag"):
        kind = "gfp_t" if s == "thread-gfp" else "bool"
        how = "reuses its" if p.get("reuse") else "gets a"
        callers = []
        for c in p.get("callers") or []:
            val = c.get("gfp") if s == "thread-gfp" else c.get("value")
            if "pass" in c:
                val = f"its own {c['pass']}"
            callers.append(f"{c.get('function')}() passes {str(val).lower() if isinstance(val, bool) else val}")
        return f"{fn}() {how} {kind} parameter {p.get('param')}" + (f"; {', '.join(callers)}" if callers else "")
    if s == "assert-replace":
        return f"the check becomes {p.get('with')}"
    if s == "condition":
        return f"the guess becomes {p.get('condition')}"
    return f"{s}: " + ", ".join(f"{k}={v}" for k, v in sorted(p.items()))


def _pre(src, hit_line):
    out = []
    for i, text in enumerate(src["lines"]):
        n = src["start"] + i
        line = f'<span class="ln">{n:5d} </span>{escape(text)}'
        out.append(f'<span class="hit">{line}</span>' if n == hit_line else line + "\n")
    return "<pre>" + "".join(out) + "</pre>"


def _site_key(file, function):
    return (file or "", function or "")


def _evidence(rec, first_in_function):
    """The chain, entry point first, collapsed: each step names its context and place, links
    to the next step, and to the finding in the same function of the same file, if any."""
    evs = rec["evidence"]
    if not evs:
        return ""
    items = []
    for i, e in enumerate(evs):
        loc = f"{e.get('file')}:{e.get('line')}" if e.get("file") else ""
        fact = escape(e["fact"])
        target = first_in_function.get(_site_key(e.get("file"), e.get("function")))
        if target and target != rec["id"]:
            fact += f' <a href="#f-{escape(target)}" title="the finding in this function">[finding]</a>'
        if i + 1 < len(evs) and e.get("kind") in ("call", "registration", "region"):
            fact += f' <a href="#ev-{rec["id"]}-{i + 1}" title="the next step">&rarr; next</a>'
        ctx = e.get("context")
        badge = f'<span class="ctx-{escape(ctx)}">[{escape(ctx)}]</span> ' if ctx else ""
        kind = f'<em>{escape(e.get("kind") or "")}</em> ' if e.get("kind") else ""
        head = f"{badge}{kind}<code>{escape(loc)}</code> {fact}"
        src = e.get("source")
        body = f"<details><summary>{head}</summary>{_pre(src, e.get('line'))}</details>" if src else head
        items.append(f'<li id="ev-{rec["id"]}-{i}">{body}</li>')
    n = len(evs)
    return (f'<details class="chain"><summary>Evidence: {n} step{"s" if n != 1 else ""}, entry point '
            f'first</summary><ol class="evidence">{"".join(items)}</ol></details>')


def _fix(rec, patch_links):
    if not rec.get("fix"):
        return ""
    href = patch_links.get(rec["id"])
    where = (f' Patch: <a class="patch" href="{escape(href)}">{escape(href.rsplit("/", 1)[-1])}</a>'
             if href else " <code>make patches</code> writes its patch.")
    return f'<p class="fix">Fix: {escape(fix_text(rec["fix"]))}.{where}</p>'


def _row(r):
    cls = escape(r["class"])
    new = ' <span class="new">new</span>' if r.get("baseline_state") == "new" else ""
    bug = ' <span class="bug">live bug</span>' if r.get("live_bug") else ""
    where = escape(r["function"] or r["macro"] or "")
    return (f'<tr id="r-{r["id"]}" data-id="{r["id"]}" data-class="{cls}" '
            f'data-predicate="{escape(r["predicate"])}" data-subsystem="{escape(r["subsystem"])}">'
            f'<td data-key="{escape(r["file"])}:{r["line"]:08d}"><a href="#f-{r["id"]}">'
            f'{escape(r["file"])}:{r["line"]}</a><br>{where}</td>'
            f'<td>{escape(" → ".join(r["via"]))}</td>'
            f'<td>{escape(r["form"])}</td>'
            f'<td class="cls cls-{cls}">{cls}{bug}{new}</td>'
            f'<td>{escape(r["confidence"] or "")}</td>'
            f'<td>{escape(r["reason"] or "")}</td></tr>')


def _section(r, first_in_function, patch_links):
    config = f"<p>Needs: <code>{escape(' && '.join(r['config']))}</code></p>" if r["config"] else ""
    return (f'<section class="finding" id="f-{r["id"]}" data-id="{r["id"]}">'
            f'<h3><code>{escape(r["file"])}:{r["line"]}</code> {escape(r["function"] or r["macro"] or "")}'
            f'<a class="back" href="#r-{r["id"]}">&uarr; row</a></h3>'
            f'<p>{escape(message(r))}</p>'
            f'<p>Expression: <code>{escape(r["expression"])}</code></p>{config}'
            f'{_pre(r["snippet"], r["line"])}{_fix(r, patch_links)}{_evidence(r, first_in_function)}</section>')


def _totals(recs):
    by_class = Counter(r["class"] for r in recs)
    rows = "".join(f'<tr><td class="cls cls-{escape(c)}"><button data-class="{escape(c)}">{escape(c)}</button></td>'
                   f"<td>{n}</td></tr>" for c, n in sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0])))
    return f'<table class="totals" style="width:auto"><tr><th>class</th><th>sites</th></tr>{rows}' \
           f"<tr><th>all</th><th>{len(recs)}</th></tr></table>"


def _filters(recs):
    out = []
    for name, label in FILTERS:
        values = Counter(r[name] for r in recs)
        opts = "".join(f'<option value="{escape(v)}">{escape(v)} ({n})</option>' for v, n in sorted(values.items()))
        out.append(f'<label>{label} <select name="{name}"><option value="">all</option>{opts}</select></label>')
    return (f'<div class="filters">{"".join(out)}<button id="reset" type="button">show all</button>'
            f'<span>showing <b id="shown">{len(recs)}</b> of {len(recs)}</span></div>')


def _live(bugs):
    if not bugs:
        return ""
    items = []
    for r in bugs:
        lb = r["live_bug"]
        steps = "".join(f"<li><code>{escape(step)}</code></li>" for step in lb["path"])
        items.append(f'<li><a href="#f-{r["id"]}"><code>{escape(r["file"])}:{r["line"]}</code> '
                     f'{escape(r["function"])}()</a>: <code>{escape(r["expression"])}</code> takes the '
                     f'sleeping branch {when_text(lb)}: <code>{escape(lb["sleeps"])}</code>'
                     f'<ol class="path">{steps}</ol></li>')
    return f'<h2 id="live-bugs">Live bugs ({len(bugs)})</h2><ul class="live">{"".join(items)}</ul>'


def _baseline(doc, recs):
    b = doc.get("baseline")
    if not b:
        return ""
    new = sum(1 for r in recs if r.get("baseline_state") == "new")
    gone = "".join(f"<li><code>{escape(g['file'])}:{g['line']}</code> {escape(g['function'] or '')}(): "
                   f"<code>{escape(g['expression'])}</code> ({escape(g['form'])})</li>" for g in b["gone"])
    text = f"Since the {escape(b['against'])}: {new} new, {len(b['gone'])} gone, {len(recs) - new} unchanged."
    return f"<p>{text}</p>" + (f"<details><summary>gone</summary><ul>{gone}</ul></details>" if gone else "")


def render(doc, patch_links=None):
    """The page. patch_links maps a finding id to the href of its patch (relative to the page);
    without it the fix says that `make patches` writes the patch."""
    patch_links = patch_links or {}
    tree = doc["tree"]
    title = f"atomic-janitor: {tree['name']}" + (f" {tree['version']}" if tree["version"] else "")
    recs = doc["findings"]
    first_in_function = {}
    for r in recs:
        if r["function"]:
            first_in_function.setdefault(_site_key(r["file"], r["function"]), r["id"])
    policy = ("Exported symbols: their in-tree callers are all the callers (whole kernel tree)"
              if tree["kind"] == "kernel" else "Exported symbols: callers unknown (module directory)")
    na = ""
    if doc["not_analysed"]:
        na = f"<h2>Not analysed ({len(doc['not_analysed'])})</h2><ul>" + "".join(
            f"<li><code>{escape(n['file'])}{':' + str(n['line']) if n['line'] else ''}</code> "
            f"{escape(n['reason'])}</li>" for n in doc["not_analysed"]) + "</ul>"
    bugs = [r for r in recs if r.get("live_bug")]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{escape(title)}</title><style>{STYLE}</style></head>
<body><h1>{escape(title)}</h1>
<p>Predicates: {escape(", ".join(doc["predicates"]))}. Scope: {escape(" ".join(doc["scope"]))}.
{len(recs)} site(s), {len(bugs)} live bug(s). {escape(policy)}.</p>
{_totals(recs)}
{_baseline(doc, recs)}
{_live(bugs)}
<h2 id="sites">Sites</h2>
{_filters(recs)}
<table id="findings"><colgroup><col class="c-site"><col class="c-pred"><col class="c-form"><col class="c-class">
<col class="c-conf"><col class="c-reason"></colgroup>
<thead><tr><th data-col="0">site</th><th data-col="1">predicate</th><th data-col="2">form</th>
<th data-col="3">class</th><th data-col="4">confidence</th><th data-col="5">reason</th></tr></thead>
<tbody>
{chr(10).join(_row(r) for r in recs)}
</tbody></table>
<h2>Each site</h2>
{chr(10).join(_section(r, first_in_function, patch_links) for r in recs)}
{na}
<script>{SCRIPT}</script>
</body></html>
"""
