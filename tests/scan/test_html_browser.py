"""index.html in a real browser (Debian's headless chromium over the DevTools protocol): it fits
a 1200 px window, raises no console error, filters and sorts, keeps evidence collapsed until
clicked, and every link inside the page lands on an element that exists."""

import json
import os
import shutil
import sys

import pytest

from ajtest import FIXTURES, REPO, run_cli

sys.path.insert(0, os.path.join(REPO, "tests"))
import browser  # noqa: E402

pytestmark = pytest.mark.skipif(browser.missing() is not None, reason=browser.missing() or "")

# Two fixture trees: the scan one has several predicates and subsystems, the classify one
# several classes, live bugs and fixes.
TREES = {"scan": os.path.join(FIXTURES, "scan", "kernel-tree"),
         "classify": os.path.join(FIXTURES, "classify", "tree")}

VISIBLE_ROWS = "Array.from(document.querySelectorAll('#findings tbody tr')).filter(r => !r.hidden).length"
# Every same-page link, and whether its target exists.
BROKEN_ANCHORS = ("Array.from(document.querySelectorAll('a[href^=\"#\"]'))"
                  ".map(a => a.getAttribute('href').slice(1)).filter(id => !document.getElementById(id))")


def goto(page, anchor):
    """Follow an in-page link and wait for the page's hashchange handler to have run."""
    page.eval("new Promise(done => { window.addEventListener('hashchange', () => setTimeout(done, 0), "
              f"{{once: true}}); location.hash = {json.dumps('#' + anchor)}; }})")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    out = {}
    for name, tree in TREES.items():
        root = tmp_path_factory.mktemp(name)
        res = run_cli("scan", "--ksrc", tree, "--output", str(root), "--predicates", "all", "--keep-going")
        assert res.returncode == 0, res.stderr
        out[name] = root / os.path.basename(tree)
    return out


@pytest.fixture(scope="module", params=sorted(TREES))
def report(request, reports):
    return reports[request.param]


@pytest.fixture(scope="module")
def page():
    with browser.Page(width=1200, height=900) as p:
        yield p


def test_fits_a_1200px_window_without_console_errors(report, page):
    page.open(report / "index.html")
    assert page.eval("document.documentElement.scrollWidth") <= page.eval("window.innerWidth")
    assert page.errors == []


def test_totals_per_class_match_the_findings(report, page):
    page.open(report / "index.html")
    doc = json.loads((report / "findings.json").read_text())
    shown = page.eval("Object.fromEntries(Array.from(document.querySelectorAll('.totals tr'))"
                      ".filter(r => r.querySelector('button')).map(r => [r.cells[0].textContent, +r.cells[1].textContent]))")
    want = {}
    for f in doc["findings"]:
        want[f["class"]] = want.get(f["class"], 0) + 1
    assert shown == want


@pytest.mark.parametrize("tree,name", [("classify", "class"), ("scan", "predicate"), ("scan", "subsystem")])
def test_each_filter_changes_the_visible_rows(reports, page, tree, name):
    report = reports[tree]
    page.open(report / "index.html")
    doc = json.loads((report / "findings.json").read_text())
    total = len(doc["findings"])
    assert page.eval(VISIBLE_ROWS) == total
    values = sorted({f[name] for f in doc["findings"]})
    assert len(values) > 1, f"the fixture needs two {name} values to test the filter"
    value = values[0]
    want = sum(1 for f in doc["findings"] if f[name] == value)
    page.eval(f"(s => {{ s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})"
              f"(document.querySelector('select[name={name}]'))")
    assert page.eval(VISIBLE_ROWS) == want < total
    assert page.eval("+document.getElementById('shown').textContent") == want
    # the sections below follow the table
    assert page.eval("document.querySelectorAll('.finding:not([hidden])').length") == want
    page.eval("document.getElementById('reset').click()")
    assert page.eval(VISIBLE_ROWS) == total
    assert page.errors == []


def test_a_class_total_filters_by_that_class(report, page):
    page.open(report / "index.html")
    doc = json.loads((report / "findings.json").read_text())
    cls = doc["findings"][0]["class"]
    page.eval(f"document.querySelector('button[data-class={json.dumps(cls)}]').click()")
    assert page.eval(VISIBLE_ROWS) == sum(1 for f in doc["findings"] if f["class"] == cls)


def test_sorting_by_a_column_orders_the_rows(report, page):
    page.open(report / "index.html")
    col = "Array.from(document.querySelectorAll('#findings tbody tr')).map(r => r.cells[2].textContent)"
    page.eval("document.querySelector('th[data-col=\"2\"]').click()")
    asc = page.eval(col)
    assert asc == sorted(asc)
    page.eval("document.querySelector('th[data-col=\"2\"]').click()")
    assert page.eval(col) == sorted(asc, reverse=True)


def test_evidence_is_collapsed_and_a_link_into_it_opens_it(report, page):
    page.open(report / "index.html")
    assert page.eval("document.querySelectorAll('details.chain').length") > 0
    assert page.eval("document.querySelectorAll('details[open]').length") == 0
    target = page.eval("document.querySelector('ol.evidence li').id")
    goto(page, target)
    assert page.eval(f"document.getElementById('{target}').closest('details.chain').open") is True


def test_every_link_in_the_page_resolves(report, page):
    page.open(report / "index.html")
    assert page.eval(BROKEN_ANCHORS) == []
    # each row links to its section and each section back to its row
    for r in json.loads((report / "findings.json").read_text())["findings"]:
        assert page.eval(f"document.querySelector('#r-{r['id']} a').getAttribute('href')") == f"#f-{r['id']}"
        assert page.eval(f"document.querySelector('#f-{r['id']} a.back').getAttribute('href')") == f"#r-{r['id']}"


def test_a_link_to_a_filtered_out_finding_shows_it(report, page):
    page.open(report / "index.html")
    doc = json.loads((report / "findings.json").read_text())
    last = doc["findings"][-1]
    # a filter that hides the last finding
    name, value = next((n, f[n]) for f in doc["findings"] for n in ("class", "predicate", "subsystem")
                       if f[n] != last[n])
    page.eval(f"(s => {{ s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})"
              f"(document.querySelector('select[name={name}]'))")
    assert page.eval(f"document.getElementById('f-{last['id']}').hidden") is True
    goto(page, f"f-{last['id']}")
    assert page.eval(f"document.getElementById('f-{last['id']}').hidden") is False


def test_live_bugs_come_first_with_their_path(reports, page):
    page.open(reports["classify"] / "index.html")
    doc = json.loads((reports["classify"] / "findings.json").read_text())
    bugs = [f for f in doc["findings"] if f["live_bug"]]
    assert bugs, "the classify fixture has live bugs"
    assert page.eval("document.querySelectorAll('ul.live > li').length") == len(bugs)
    assert page.eval("document.getElementById('live-bugs').compareDocumentPosition("
                     "document.getElementById('findings')) & Node.DOCUMENT_POSITION_FOLLOWING") != 0


def test_the_page_is_self_contained(report):
    html = (report / "index.html").read_text()
    for ref in ("src=\"http", "href=\"http", "<link ", "src=\"//", "@import"):
        assert ref not in html
    copy = report.parent / "elsewhere.html"
    shutil.copyfile(report / "index.html", copy)   # works wherever it is opened
    with browser.Page() as p:
        p.open(copy)
        assert p.eval(VISIBLE_ROWS) > 0 and p.errors == []
