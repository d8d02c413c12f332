"""make scan on a small fake kernel tree: exact findings, wrappers, traps, determinism, formats."""

import json
import os
import shutil

import pytest

from ajtest import FIXTURES, REPO, run_cli

TREE = os.path.join(FIXTURES, "scan", "kernel-tree")
EXPECTED = json.load(open(os.path.join(FIXTURES, "scan", "kernel-tree.expected.json")))


def _key(rec):
    kind = "macro" if rec["macro"] else "function"
    return [rec["file"], kind, rec["macro"] or rec["function"], rec["called"], rec["via"], rec["form"],
            rec["expression"]]


@pytest.fixture(scope="module")
def default_scan(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    res = run_cli("scan", "--ksrc", TREE, "--output", str(out))
    assert res.returncode == 0, res.stderr
    return out / "kernel-tree", res


@pytest.fixture(scope="module")
def all_scan(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports-all")
    res = run_cli("scan", "--ksrc", TREE, "--output", str(out), "--predicates", "all", "--scope", "all")
    assert res.returncode == 0, res.stderr
    return out / "kernel-tree"


def load(d):
    with open(d / "findings.json") as fh:
        return json.load(fh)


def test_default_scope_finds_exactly_the_expected_uses(default_scan):
    doc = load(default_scan[0])
    assert [_key(r) for r in doc["findings"]] == EXPECTED["default"]


def test_wrappers_are_found_with_their_chains(default_scan):
    doc = load(default_scan[0])
    got = {w["name"]: {k: w[k] for k in ("kind", "file", "via", "asserts", "true_means")} for w in doc["wrappers"]}
    assert got == EXPECTED["wrappers"]


def test_not_a_use_traps_are_never_findings(default_scan, all_scan):
    for d in (default_scan[0], all_scan):
        doc = load(d)
        assert not [r for r in doc["findings"] if r["file"] == "drivers/fake/traps.c"]
        # predicate definitions are not uses
        assert not [r for r in doc["findings"] if r["file"].startswith("include/linux/")]
        assert doc["not_analysed"] == []


def test_assertion_macro_is_one_finding_at_its_define_with_config(default_scan):
    doc = load(default_scan[0])
    hits = [r for r in doc["findings"] if "FAKE_CHECK_ATOMIC" in (r["macro"], r["called"])]
    assert len(hits) == 1
    assert hits[0]["config"] == ["defined(CONFIG_FAKE_DEBUG) && defined(CONFIG_PREEMPT_COUNT)"]
    # include guards are not configuration
    assert all(r["config"] == [] for r in doc["findings"] if r is not hits[0])


def test_predicates_all_and_scope_all_add_family_and_core(all_scan):
    doc = load(all_scan)
    keys = [_key(r) for r in doc["findings"]]
    for extra in EXPECTED["all_scope_all_extra"]:
        assert extra in keys
    for base in EXPECTED["default"]:
        assert base[:4] in [k[:4] for k in keys]
    assert "in_interrupt" in doc["predicates"] and doc["scope"] == ["."]


def test_summary_lines_are_coccicheck_style(default_scan):
    text = (default_scan[0] / "summary.txt").read_text()
    assert "\ndrivers/fake/forms.c:7:13-22: in_atomic() in fake_alloc_ternary(): gfp-select [" in text
    for table in ("by form:", "by class:", "by top-level directory:"):
        assert table in text


def test_findings_validate_against_the_documented_schema(default_scan, all_scan):
    import jsonschema
    schema = json.load(open(os.path.join(REPO, "scripts", "atomic_janitor", "schema", "findings.schema.json")))
    for d in (default_scan[0], all_scan):
        jsonschema.validate(load(d), schema)


def test_ids_are_stable_and_unique(default_scan):
    doc = load(default_scan[0])
    ids = [r["id"] for r in doc["findings"]]
    assert len(set(ids)) == len(ids)
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in ids)


def test_output_is_deterministic_and_has_no_absolute_paths(default_scan, tmp_path):
    res = run_cli("scan", "--ksrc", TREE, "--output", str(tmp_path))
    assert res.returncode == 0, res.stderr
    for name in ("findings.json", "summary.txt", "findings.sarif", "index.html"):
        a = (default_scan[0] / name).read_bytes()
        b = (tmp_path / "kernel-tree" / name).read_bytes()
        assert a == b, name
        assert TREE.encode() not in a and str(tmp_path).encode() not in b


def test_ids_survive_an_unrelated_edit(default_scan, tmp_path):
    tree = tmp_path / "kernel-tree"
    shutil.copytree(TREE, tree)
    src = tree / "drivers" / "fake" / "forms.c"
    src.write_text("/* an unrelated comment\n * pushing every line down */\n" + src.read_text())
    res = run_cli("scan", "--ksrc", str(tree), "--output", str(tmp_path / "out"))
    assert res.returncode == 0, res.stderr
    before = {r["id"]: r["line"] for r in load(default_scan[0])["findings"]}
    after = {r["id"]: r["line"] for r in load(tmp_path / "out" / "kernel-tree")["findings"]}
    assert set(before) == set(after)
    moved = [i for i in before if after[i] != before[i]]
    assert len(moved) == 9      # every forms.c finding moved by two lines, and kept its id
