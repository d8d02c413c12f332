"""The style and script of index.html, inlined so that the page is one file that works offline.

The page must fit a 1200 px window: a fixed table layout with wrapping cells, source blocks that
scroll inside themselves, never the page."""

STYLE = """
*{box-sizing:border-box}[hidden]{display:none!important}
body{font-family:sans-serif;margin:0 auto;padding:1em 1.5em;max-width:1200px;line-height:1.35}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em}h3{font-size:1em;margin:.2em 0}
code{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:.25em .4em;text-align:left;font-size:88%;vertical-align:top;overflow-wrap:anywhere}
#findings{table-layout:fixed}
#findings th{background:#eee;cursor:pointer;user-select:none}
#findings th:after{content:" \\2195";color:#999}
#findings th[data-dir=asc]:after{content:" \\2191";color:#333}
#findings th[data-dir=desc]:after{content:" \\2193";color:#333}
col.c-site{width:24%}col.c-pred{width:11%}col.c-form{width:10%}col.c-class{width:13%}col.c-conf{width:8%}
col.c-reason{width:34%}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow-x:auto;font-size:85%;max-width:100%}
.hit{background:#ffe08a;display:block}.ln{color:#999;user-select:none}
.finding{border-top:2px solid #ddd;margin-top:1.2em;padding-top:.4em}
.finding:target,tr:target{background:#eef6ff}
.cls{font-weight:bold}.cls-manual-review{color:#a60}.cls-core-allowed,.cls-unclassified{color:#666}
.cls-sleepable-proven,.cls-atomic-proven,.cls-caller-gfp,.cls-caller-flag,.cls-well-defined-condition,
.cls-assertion{color:#070}
.new{background:#06c;color:#fff;border-radius:3px;padding:0 .3em;font-size:80%;font-weight:normal}
.bug{background:#a00;color:#fff;border-radius:3px;padding:0 .3em;font-size:80%}
ol.evidence li{margin:.25em 0}ol.evidence li:target{background:#eef6ff}
.ctx-atomic{color:#a00}.ctx-sleepable{color:#070}.ctx-unknown{color:#a60}
details>summary{cursor:pointer}
.totals td,.totals th{font-size:90%}.totals button{font:inherit;border:0;background:none;color:#06c;
cursor:pointer;padding:0;text-decoration:underline}
.filters{display:flex;flex-wrap:wrap;gap:.6em 1.2em;align-items:center;margin:1em 0;padding:.5em;
background:#f4f4f4;border:1px solid #ddd}
.filters label{font-size:90%}.filters select{max-width:16em}
.fix{background:#f1f8f1;border-left:3px solid #070;padding:.3em .6em}
.back{font-size:85%;margin-left:.6em}
"""

SCRIPT = """
(function(){
  var rows = Array.prototype.slice.call(document.querySelectorAll('#findings tbody tr'));
  var sections = {};
  document.querySelectorAll('.finding').forEach(function(s){ sections[s.dataset.id] = s; });
  var selects = Array.prototype.slice.call(document.querySelectorAll('.filters select'));
  var shown = document.getElementById('shown');

  function apply(){
    var n = 0;
    rows.forEach(function(r){
      var ok = selects.every(function(s){ return !s.value || r.dataset[s.name] === s.value; });
      r.hidden = !ok;
      if (sections[r.dataset.id]) sections[r.dataset.id].hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n;
  }
  selects.forEach(function(s){ s.addEventListener('change', apply); });
  document.getElementById('reset').addEventListener('click', function(){
    selects.forEach(function(s){ s.value = ''; }); apply();
  });
  document.querySelectorAll('button[data-class]').forEach(function(b){
    b.addEventListener('click', function(){
      selects.forEach(function(s){ s.value = s.name === 'class' ? b.dataset.class : ''; });
      apply();
      document.getElementById('findings').scrollIntoView();
    });
  });

  document.querySelectorAll('#findings th[data-col]').forEach(function(th){
    th.addEventListener('click', function(){
      var tb = th.closest('table').tBodies[0], col = +th.dataset.col;
      var asc = th.dataset.dir !== 'asc';
      document.querySelectorAll('#findings th').forEach(function(o){ delete o.dataset.dir; });
      th.dataset.dir = asc ? 'asc' : 'desc';
      rows.slice().sort(function(a, b){
        var x = a.cells[col].dataset.key || a.cells[col].textContent;
        var y = b.cells[col].dataset.key || b.cells[col].textContent;
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      }).forEach(function(r){ tb.appendChild(r); });
    });
  });

  // A link into a hidden finding or a closed chain shows its target: the filter is cleared
  // and the enclosing <details> opened.
  function reveal(){
    var id = decodeURIComponent(location.hash.slice(1));
    var t = id && document.getElementById(id);
    if (!t) return;
    var hidden = false;
    for (var e = t; e; e = e.parentElement){ if (e.hidden) hidden = true; }
    if (hidden){ selects.forEach(function(s){ s.value = ''; }); apply(); }
    for (var d = t; d; d = d.parentElement){ if (d.tagName === 'DETAILS') d.open = true; }
    t.scrollIntoView();
  }
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();
})();
"""
