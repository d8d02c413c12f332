"""Per-file cache: a warm re-scan does no spatch work; a changed file is the only one redone."""

import os
import re
import shutil

from ajtest import FIXTURES

from atomic_janitor import pipeline as scanrun
from atomic_janitor import spatch


def _scan(tree, out):
    lines = []
    doc = scanrun.scan(str(tree), None, None, 2, None, str(out), log=lines.append)
    m = re.search(r"(\d+) files analysed, (\d+) by spatch", "\n".join(lines))
    return doc, int(m.group(1)), int(m.group(2))


def test_warm_rescan_runs_no_spatch_and_one_changed_file_reruns_alone(tmp_path, isolated_cache):
    tree = tmp_path / "kernel-tree"
    shutil.copytree(os.path.join(FIXTURES, "scan", "kernel-tree"), tree)
    cold, analysed, ran = _scan(tree, tmp_path / "o1")
    assert ran >= analysed > 0
    warm, analysed2, ran2 = _scan(tree, tmp_path / "o2")
    assert (analysed2, ran2) == (analysed, 0)
    assert warm["findings"] == cold["findings"]

    # Touched but identical: the content hash says nothing changed.
    os.utime(tree / "drivers" / "fake" / "forms.c", ns=(1, 1))
    _doc, _a, ran3 = _scan(tree, tmp_path / "o3")
    assert ran3 == 0

    # A real change to one file: that file alone goes back to spatch.
    src = tree / "drivers" / "fake" / "forms.c"
    src.write_text(src.read_text().replace("msleep(10);", "msleep(20);"))
    changed, _a, ran4 = _scan(tree, tmp_path / "o4")
    assert ran4 == 1
    assert [r["id"] for r in changed["findings"]] == [r["id"] for r in cold["findings"]]


def test_new_use_in_a_new_file_is_found_on_rescan(tmp_path, isolated_cache):
    tree = tmp_path / "kernel-tree"
    shutil.copytree(os.path.join(FIXTURES, "scan", "kernel-tree"), tree)
    first, _a, _r = _scan(tree, tmp_path / "o1")
    (tree / "drivers" / "fake" / "late.c").write_text(
        "void fake_late(void)\n{\n\tif (!in_atomic())\n\t\tmsleep(1);\n}\n")
    second, _a, ran = _scan(tree, tmp_path / "o2")
    assert ran == 1
    assert len(second["findings"]) == len(first["findings"]) + 1
    assert any(r["function"] == "fake_late" and r["form"] == "sleep-guard" for r in second["findings"])


def _scan_log(tree, out):
    lines = []
    doc = scanrun.scan(str(tree), None, None, 2, None, str(out), log=lines.append)
    return doc, "\n".join(lines)


def test_an_unchanged_tree_reuses_the_whole_result_and_any_change_does_not(tmp_path, isolated_cache):
    """The result cache: same tree, tool and options give the stored result, byte for byte
    the same reports; a file touched anywhere in the tree (not only a scanned one) or other
    options run the analysis again."""
    tree = tmp_path / "kernel-tree"
    shutil.copytree(os.path.join(FIXTURES, "scan", "kernel-tree"), tree)
    cold, log1 = _scan_log(tree, tmp_path / "o1")
    assert "classify: reused" not in log1
    warm, log2 = _scan_log(tree, tmp_path / "o2")
    assert "classify: reused" in log2
    assert warm["findings"] == cold["findings"]
    for name in ("findings.json", "summary.txt"):
        a = (tmp_path / "o1" / "kernel-tree" / name).read_bytes()
        b = (tmp_path / "o2" / "kernel-tree" / name).read_bytes()
        assert a == b, name
    # an unrelated file outside every scope still counts: the analysis may read any file
    (tree / "Documentation").mkdir(exist_ok=True)
    (tree / "Documentation" / "new.rst").write_text("x\n")
    _d, log3 = _scan_log(tree, tmp_path / "o3")
    assert "classify: reused" not in log3
    _d, log4 = _scan_log(tree, tmp_path / "o4")
    assert "classify: reused" in log4
    lines = []
    scanrun.scan(str(tree), None, "all", 2, None, str(tmp_path / "o5"), log=lines.append)
    assert "classify: reused" not in "\n".join(lines)


def test_batch_count_keeps_every_job_busy_and_caps_a_batch():
    for jobs in (1, 2, 4):
        for n in (1, 3, 8, 10, 50, 100, 400, 2953):
            k = spatch.batch_count(n, jobs)
            assert 1 <= k <= n
            assert -(-n // k) <= spatch.MAX_BATCH           # the biggest batch of rels[i::k]
            if n >= 2 * jobs * spatch.MIN_BATCH:
                assert k >= 2 * jobs                        # no job idles while one batch runs


def test_the_records_of_a_file_do_not_depend_on_its_batch(tmp_path, isolated_cache, monkeypatch):
    """A file per spatch process or all of them in one: the same findings, cold both times."""
    tree = tmp_path / "kernel-tree"
    shutil.copytree(os.path.join(FIXTURES, "scan", "kernel-tree"), tree)
    monkeypatch.setattr(spatch, "MAX_BATCH", 1)
    one, _a, ran1 = _scan(tree, tmp_path / "o1")
    shutil.rmtree(isolated_cache)
    monkeypatch.setattr(spatch, "MAX_BATCH", 1000)
    monkeypatch.setattr(spatch, "MIN_BATCH", 1000)
    many, _a, ran2 = _scan(tree, tmp_path / "o2")
    assert ran1 == ran2 > 1
    assert one["findings"] == many["findings"]


def test_a_scan_without_cache_leaves_no_scratch_behind(tmp_path, isolated_cache, monkeypatch):
    """--no-cache builds its macro file in a scratch directory, removed when the scan ends."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR is read again
    tree = os.path.join(FIXTURES, "scan", "kernel-tree")
    doc = scanrun.scan(tree, None, None, 2, None, str(tmp_path / "o"), use_cache=False, log=lambda _l: None)
    assert doc["findings"]
    assert not [p for p in os.listdir(scratch) if p.startswith("aj-macros-")]
    # the pointer `make patches` follows is all a cacheless scan keeps
    assert os.listdir(isolated_cache / "atomic-janitor") == ["last-scan"]
