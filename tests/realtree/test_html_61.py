"""The 6.1 PREDICATES=all report in headless chromium: 156 sites on one page still fit a
1200 px window, raise no console error, and every in-page link lands."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "analysis"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import browser  # noqa: E402
from atomic_janitor.report import render_html  # noqa: E402
from realtree_scan import scan  # noqa: E402

pytestmark = [pytest.mark.realtree,
              pytest.mark.skipif(browser.missing() is not None, reason=browser.missing() or "")]


def test_the_61_report_reads_in_a_browser(tmp_path):
    doc = scan("all")
    render_html(doc, str(tmp_path))
    with browser.Page(width=1200, height=900) as page:
        page.open(tmp_path / "index.html")
        assert page.eval("document.documentElement.scrollWidth") <= page.eval("window.innerWidth")
        assert page.eval("Array.from(document.querySelectorAll('a[href^=\"#\"]'))"
                         ".map(a => a.getAttribute('href').slice(1))"
                         ".filter(id => !document.getElementById(id)).length") == 0
        rows = "Array.from(document.querySelectorAll('#findings tbody tr')).filter(r => !r.hidden).length"
        assert page.eval(rows) == len(doc["findings"])
        page.eval("(s => { s.value = 'manual-review'; s.dispatchEvent(new Event('change')); })"
                  "(document.querySelector('select[name=class]'))")
        assert page.eval(rows) == sum(1 for f in doc["findings"] if f["class"] == "manual-review")
        # the page is as tall as its sites, not as every evidence chain unrolled
        assert page.eval("document.querySelectorAll('details[open]').length") == 0
        assert page.errors == []
