"""index.html: one self-contained page, a sortable table and each finding with its source."""

from html import escape

from .summary import message, when_text

STYLE = """
body{font-family:sans-serif;margin:1.5em;max-width:1200px}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;font-size:90%}
th{background:#eee;cursor:pointer}th:after{content:" \\2195";color:#999}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow-x:auto;font-size:85%}
.hit{background:#ffe08a;display:block}.ln{color:#999;user-select:none}
.finding{border-top:2px solid #ddd;margin-top:1.5em;padding-top:.5em}
.cls{font-weight:bold}.cls-manual-review{color:#a60}.cls-core-allowed{color:#666}
.cls-unclassified{color:#666}.cls-sleepable-proven,.cls-atomic-proven,.cls-caller-gfp,.cls-caller-flag,
.cls-well-defined-condition{color:#070}
ol.evidence li{margin:.2em 0}
ol.evidence li:target{background:#eef6ff}
.ctx-atomic{color:#a00}.ctx-sleepable{color:#070}.ctx-unknown{color:#a60}
details>summary{cursor:pointer}
"""

SCRIPT = """
document.querySelectorAll('th[data-col]').forEach(function(th){
  th.addEventListener('click', function(){
    var tb = th.closest('table').tBodies[0], col = +th.dataset.col;
    var asc = th.dataset.dir !== 'asc'; th.dataset.dir = asc ? 'asc' : 'desc';
    var rows = Array.from(tb.rows);
    rows.sort(function(a, b){
      var x = a.cells[col].dataset.key || a.cells[col].textContent;
      var y = b.cells[col].dataset.key || b.cells[col].textContent;
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    rows.forEach(function(r){ tb.appendChild(r); });
  });
});
"""


def _source(rec):
    snip = rec["snippet"]
    out = []
    for i, text in enumerate(snip["lines"]):
        n = snip["start"] + i
        line = f'<span class="ln">{n:5d} </span>{escape(text)}'
        out.append(f'<span class="hit">{line}</span>' if n == rec["line"] else line + "\n")
    return "<pre>" + "".join(out) + "</pre>"


def _ev_source(e):
    src = e.get("source")
    if not src:
        return ""
    out = []
    for i, text in enumerate(src["lines"]):
        n = src["start"] + i
        line = f'<span class="ln">{n:5d} </span>{escape(text)}'
        out.append(f'<span class="hit">{line}</span>' if n == e.get("line") else line + "\n")
    return "<pre>" + "".join(out) + "</pre>"


def _evidence(rec, by_function):
    """The chain, entry first: each step shows its source and links to the next step (the
    callee), so a reader follows it by clicking from caller to callee."""
    if not rec["evidence"]:
        return ""
    items = []
    evs = rec["evidence"]
    for i, e in enumerate(evs):
        loc = f"{e.get('file')}:{e.get('line')}" if e.get("file") else ""
        fact = escape(e["fact"])
        target = by_function.get(e.get("function"))
        if target and target != rec["id"]:
            fact += f' <a href="#f-{escape(target)}" title="finding in this function">[finding]</a>'
        nxt = ""
        if i + 1 < len(evs) and e.get("kind") in ("call", "registration", "region"):
            nxt = f' <a href="#ev-{rec["id"]}-{i + 1}" title="go to the callee">&rarr; callee</a>'
        ctx = e.get("context")
        badge = f'<span class="ctx-{escape(ctx)}">[{escape(ctx)}]</span> ' if ctx else ""
        kind = f'<em>{escape(e.get("kind") or "")}</em> ' if e.get("kind") else ""
        src = _ev_source(e)
        body = f"<details open><summary>{badge}{kind}<code>{escape(loc)}</code> {fact}{nxt}</summary>{src}</details>" \
            if src else f"{badge}{kind}<code>{escape(loc)}</code> {fact}{nxt}"
        items.append(f'<li id="ev-{rec["id"]}-{i}">{body}</li>')
    fix = ""
    if rec.get("fix"):
        import json
        fix = f'<p>Fix: <code>{escape(json.dumps(rec["fix"], sort_keys=True))}</code></p>'
    return "<p>Evidence (entry point first; click &rarr; callee to follow the chain):</p>" \
        '<ol class="evidence">' + "".join(items) + "</ol>" + fix


def render(doc):
    tree = doc["tree"]
    title = f"atomic-janitor: {tree['name']}" + (f" {tree['version']}" if tree["version"] else "")
    recs = doc["findings"]
    by_function = {}
    for r in recs:
        if r["function"]:
            by_function.setdefault(r["function"], r["id"])
    rows = []
    for r in recs:
        rows.append(
            "<tr>"
            f'<td data-key="{escape(r["file"])}:{r["line"]:08d}"><a href="#f-{r["id"]}">'
            f'{escape(r["file"])}:{r["line"]}</a></td>'
            f'<td>{escape(r["function"] or r["macro"] or "")}</td>'
            f'<td>{escape(" -> ".join(r["via"]))}</td>'
            f'<td>{escape(r["form"])}</td>'
            f'<td class="cls cls-{escape(r["class"])}">{escape(r["class"])}'
            f'{" <b>new</b>" if r.get("baseline_state") == "new" else ""}</td>'
            f'<td>{escape(r["confidence"] or "")}</td>'
            f'<td>{escape(r["reason"] or "")}</td>'
            "</tr>")
    details = []
    anchors = set()
    for r in recs:
        fn_anchor = ""
        if r["function"] and by_function.get(r["function"]) == r["id"] and r["function"] not in anchors:
            anchors.add(r["function"])
            fn_anchor = f'<a id="fn-{escape(r["id"])}"></a>'
        config = f"<p>Needs: <code>{escape(' && '.join(r['config']))}</code></p>" if r["config"] else ""
        details.append(
            f'<div class="finding" id="f-{r["id"]}">{fn_anchor}'
            f'<h3><code>{escape(r["file"])}:{r["line"]}</code> {escape(r["function"] or r["macro"] or "")}</h3>'
            f'<p>{escape(message(r))}</p>'
            f'<p>Expression: <code>{escape(r["expression"])}</code></p>{config}'
            f'{_source(r)}{_evidence(r, by_function)}</div>')
    bugs = [r for r in recs if r.get("live_bug")]
    live = ""
    if bugs:
        # First on the page: a sleep in atomic context that happens today (issue 16).
        items = []
        for r in bugs:
            lb = r["live_bug"]
            steps = "".join(f"<li><code>{escape(step)}</code></li>" for step in lb["path"])
            items.append(f'<li><a href="#f-{r["id"]}"><code>{escape(r["file"])}:{r["line"]}</code> '
                         f'{escape(r["function"])}()</a>: <code>{escape(r["expression"])}</code> takes the '
                         f'sleeping branch {when_text(lb)}: <code>{escape(lb["sleeps"])}</code>'
                         f'<ol class="path">{steps}</ol></li>')
        live = f'<h2 id="live-bugs">Live bugs ({len(bugs)})</h2><ul class="live">{"".join(items)}</ul>'
    na = ""
    if doc["not_analysed"]:
        na = "<h2>Not analysed</h2><ul>" + "".join(
            f"<li><code>{escape(n['file'])}{':' + str(n['line']) if n['line'] else ''}</code> "
            f"{escape(n['reason'])}</li>" for n in doc["not_analysed"]) + "</ul>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title><style>{STYLE}</style></head>
<body><h1>{escape(title)}</h1>
<p>Predicates: {escape(", ".join(doc["predicates"]))}. Scope: {escape(" ".join(doc["scope"]))}.
{len(recs)} finding(s). Click a column heading to sort.</p>
{live}
<table id="findings"><thead><tr><th data-col="0">file</th><th data-col="1">function</th>
<th data-col="2">via</th><th data-col="3">form</th><th data-col="4">class</th>
<th data-col="5">confidence</th><th data-col="6">reason</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table>
{chr(10).join(details)}
{na}
<script>{SCRIPT}</script>
</body></html>
"""
