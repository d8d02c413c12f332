"""Bad input: one CRITICAL line, non-zero exit, nothing lost, the tree only ever read."""

import json
import os
import shutil
import stat

import pytest

from ajtest import FIXTURES, run_cli

TREE = os.path.join(FIXTURES, "scan", "kernel-tree")


def _critical(res):
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert lines and lines[0].startswith("CRITICAL: "), res.stderr
    assert "Traceback" not in res.stderr
    return lines[0]


def test_ksrc_missing(tmp_path):
    res = run_cli("scan", "--ksrc", str(tmp_path / "nope"), "--output", str(tmp_path / "out"))
    assert res.returncode == 1
    assert "does not exist" in _critical(res)


def test_ksrc_is_a_file(tmp_path):
    f = tmp_path / "file.c"
    f.write_text("int x;\n")
    res = run_cli("scan", "--ksrc", str(f), "--output", str(tmp_path / "out"))
    assert res.returncode == 1
    assert "not a directory" in _critical(res)


def test_ksrc_without_c_files(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "README").write_text("no code here\n")
    res = run_cli("scan", "--ksrc", str(tmp_path / "tree"), "--output", str(tmp_path / "out"))
    assert res.returncode == 1
    assert "contains no C files" in _critical(res)


@pytest.mark.parametrize("args,needle", [
    (["--predicates", "in_atomic,in_bogus"], "unknown PREDICATES entry 'in_bogus'"),
    (["--format", "pdf"], "unknown FORMAT 'pdf'"),
    (["--scope", "nonexistent/"], "SCOPE entry 'nonexistent' does not exist"),
    (["--scope", "../etc"], "must be a path inside the tree"),
])
def test_bad_values(tmp_path, args, needle):
    res = run_cli("scan", "--ksrc", TREE, "--output", str(tmp_path / "out"), *args)
    assert res.returncode == 1
    assert needle in _critical(res)
    assert not (tmp_path / "out" / "kernel-tree").exists()


def test_unknown_option_is_a_usage_error(tmp_path):
    res = run_cli("scan", "--frobnicate")
    assert res.returncode == 2
    _critical(res)


def _tree_with_unparsable(tmp_path):
    tree = tmp_path / "mod"
    shutil.copytree(os.path.join(FIXTURES, "scan", "unparsable"), tree)
    return tree


def test_unparsable_code_is_listed_and_makes_the_scan_incomplete(tmp_path):
    tree = _tree_with_unparsable(tmp_path)
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    res = run_cli("scan", "--ksrc", str(tree), "--output", str(tmp_path / "out"))
    assert res.returncode == 3, res.stdout + res.stderr
    assert "scan incomplete" in _critical(res)
    doc = json.loads((tmp_path / "out" / "mod" / "findings.json").read_text())
    # the parsable file's use is still found; the broken one is listed, with its line
    assert [(r["file"], r["function"]) for r in doc["findings"]] == [("good.c", "good_alloc")]
    assert [(n["file"], n["line"]) for n in doc["not_analysed"]] == [("broken.c", 6)]
    summary = (tmp_path / "out" / "mod" / "summary.txt").read_text()
    assert "not analysed:\n  broken.c:6: textual call of in_atomic()" in summary
    # the tree was only read
    assert before == {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}


def test_keep_going_accepts_an_incomplete_scan(tmp_path):
    tree = _tree_with_unparsable(tmp_path)
    res = run_cli("scan", "--ksrc", str(tree), "--output", str(tmp_path / "out"), "--keep-going")
    assert res.returncode == 0, res.stderr
    res = run_cli("scan", "--ksrc", str(tree), "--output", str(tmp_path / "out2"), env={"KEEP_GOING": ""})
    assert res.returncode == 3


def test_read_only_output_keeps_previous_reports(tmp_path):
    out = tmp_path / "out"
    res = run_cli("scan", "--ksrc", TREE, "--output", str(out))
    assert res.returncode == 0, res.stderr
    previous = (out / "kernel-tree" / "findings.json").read_bytes()
    os.chmod(out, stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(out, os.W_OK):          # root ignores mode bits: use a file where a dir must be
            os.chmod(out, 0o755)
            shutil.rmtree(out)
            out.write_text("not a directory\n")
            res = run_cli("scan", "--ksrc", TREE, "--output", str(out))
            assert res.returncode == 1
            assert "cannot write" in _critical(res)
            assert out.read_text() == "not a directory\n"
            return
        res = run_cli("scan", "--ksrc", TREE, "--output", str(out))
        assert res.returncode == 1
        assert "cannot write" in _critical(res)
        assert (out / "kernel-tree" / "findings.json").read_bytes() == previous
    finally:
        if out.is_dir():
            os.chmod(out, 0o755)


def test_full_disk_keeps_previous_reports(tmp_path, monkeypatch):
    """A write that fails half-way (ENOSPC) leaves the last complete reports in place."""
    from atomic_janitor import atomicio
    from atomic_janitor import pipeline as scanrun
    out = tmp_path / "out"
    scanrun.scan(TREE, None, None, 2, None, str(out), log=lambda *a: None)
    previous = (out / "kernel-tree" / "findings.json").read_bytes()
    real = atomicio.write_text

    def failing(path, text):
        if path.endswith("index.html"):
            raise atomicio.JanitorError(f"cannot write {path}: No space left on device")
        return real(path, text)

    monkeypatch.setattr(atomicio, "write_text", failing)
    monkeypatch.setattr("atomic_janitor.report.write_text", failing)
    with pytest.raises(atomicio.JanitorError):
        scanrun.scan(TREE, None, "all", 2, None, str(out), log=lambda *a: None)
    assert (out / "kernel-tree" / "findings.json").read_bytes() == previous
    assert [p.name for p in out.iterdir()] == ["kernel-tree"]


def test_interrupted_run_keeps_previous_reports(tmp_path, monkeypatch):
    from atomic_janitor import pipeline as scanrun
    out = tmp_path / "out"
    scanrun.scan(TREE, None, None, 2, None, str(out), log=lambda *a: None)
    previous = (out / "kernel-tree" / "summary.txt").read_bytes()

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(scanrun, "render_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        scanrun.scan(TREE, None, "all", 2, None, str(out), log=lambda *a: None)
    assert (out / "kernel-tree" / "summary.txt").read_bytes() == previous
    assert [p.name for p in out.iterdir()] == ["kernel-tree"]


def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys):
    from atomic_janitor import cli
    from atomic_janitor import pipeline as scanrun

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(scanrun, "scan", interrupted)
    assert cli.main(["scan", "--ksrc", TREE]) == 130
    assert capsys.readouterr().err.startswith("CRITICAL: interrupted")
