"""findings.sarif against SARIF 2.1.0 (the subset we emit, schema written from the standard),
and index.html as a page a person reads: parses, one entry per finding, source shown."""

import json
import os
from html.parser import HTMLParser

import jsonschema
import pytest

from ajtest import FIXTURES, REPO, run_cli

TREE = os.path.join(FIXTURES, "scan", "kernel-tree")
OFFICIAL = os.environ.get("SARIF_SCHEMA")   # the OASIS file, when the user has one


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("r")
    res = run_cli("scan", "--ksrc", TREE, "--output", str(out))
    assert res.returncode == 0, res.stderr
    return out / "kernel-tree"


def test_sarif_validates_and_matches_findings(reports):
    sarif = json.loads((reports / "findings.sarif").read_text())
    doc = json.loads((reports / "findings.json").read_text())
    schema = json.load(open(os.path.join(REPO, "tests", "data", "sarif-2.1.0-subset.schema.json")))
    jsonschema.validate(sarif, schema)
    if OFFICIAL:
        jsonschema.validate(sarif, json.load(open(OFFICIAL)))
    results = sarif["runs"][0]["results"]
    assert len(results) == len(doc["findings"])
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    for res, rec in zip(results, doc["findings"]):
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == rec["file"]
        assert loc["region"]["startLine"] == rec["line"]
        assert loc["region"]["startColumn"] == rec["col"] + 1
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"] == rec["form"]
        assert res["partialFingerprints"]["atomicJanitorId/v1"] == rec["id"]


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.rows, self.pre = set(), 0, 0
        self._in_tbody = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "tbody":
            self._in_tbody = True
        if tag == "tr" and self._in_tbody:
            self.rows += 1
        if tag == "pre":
            self.pre += 1

    def handle_endtag(self, tag):
        if tag == "tbody":
            self._in_tbody = False


def test_html_has_a_sortable_row_and_source_for_every_finding(reports):
    html = (reports / "index.html").read_text()
    doc = json.loads((reports / "findings.json").read_text())
    p = _Collect()
    p.feed(html)
    assert p.rows == len(doc["findings"])
    assert p.pre >= len(doc["findings"])
    for rec in doc["findings"]:
        assert f"f-{rec['id']}" in p.ids
    assert "data-col" in html and "addEventListener('click'" in html
    assert "if (!in_atomic())" in html          # a line of source around a site
