"""The CLI's bad-input behaviour: one CRITICAL line + remediation, exit 1, no traceback,
nothing touched. Offline: every case fails before any build."""
import os
import subprocess

import pytest

from verify_support import DATA, PYTHON, QV, REPO


def run(*args, **kw):
    return subprocess.run([PYTHON, QV, *args], cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw)


def _critical(p, stage, what):
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    first = p.stderr.splitlines()[0]
    assert first.startswith(f"CRITICAL: {stage}: ") and what in first, p.stderr
    assert any(l.startswith("  -> ") for l in p.stderr.splitlines()[1:])


def test_ksrc_not_a_kernel_tree(tmp_path):
    (tmp_path / "foo.c").write_text("int x;\n")
    p = run("run", "--ksrc", str(tmp_path), "--series", "none", "--output", str(tmp_path / "o"))
    _critical(p, "tree", "not a kernel tree")
    assert "KDIR=" in p.stderr
    assert sorted(os.listdir(tmp_path)) == ["foo.c"]       # nothing written into it


def test_ksrc_missing(tmp_path):
    p = run("run", "--ksrc", str(tmp_path / "nope"), "--series", "none")
    _critical(p, "tree", "does not exist")


def test_compile_only_without_the_compile_test_is_refused(tmp_path):
    p = run("run", "--compile-only", "--no-compile-test", "--series", "none", "--output", str(tmp_path / "o"))
    _critical(p, "options", "leave nothing to do")
    assert not os.path.exists(tmp_path / "o")


def test_kdir_without_kbuild(tmp_path):
    (tmp_path / "k").mkdir()
    p = run("run", "--kdir", str(tmp_path / "k"), "--series", "none")
    _critical(p, "tree", "KDIR has no Kbuild or Makefile")


@pytest.mark.realtree
def test_series_dir_missing(tmp_path):
    p = run("run", "--series", str(tmp_path / "nope"), "--output", str(tmp_path / "o"))
    _critical(p, "series", "no such series")


@pytest.mark.parametrize("log,rc", [("console-pass.log", 0), ("console-truncated.log", 1),
                                    ("console-panic.log", 1), ("console-case-fails.log", 1),
                                    ("console-unexpected-lockdep.log", 1)])
def test_parse_command_reruns_offline(log, rc):
    p = run("parse", os.path.join(DATA, log))
    assert p.returncode == rc
    assert p.stdout.strip().endswith("PASS" if rc == 0 else "FAIL")


def test_parse_quotes_the_unexpected_splat():
    p = run("parse", os.path.join(DATA, "console-unexpected-lockdep.log"))
    assert "unexpected lockdep" in p.stdout and "Invalid wait context" in p.stdout


def test_usage_without_command():
    p = run()
    assert p.returncode == 2 and "usage" in p.stdout.lower()


def test_missing_dependency_stops_before_any_build(tmp_path):
    """Issue 12: a PATH without qemu gives one line that names it and the package, exit 1,
    and nothing built or written (the check runs before the tree is even read)."""
    import shutil
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("gcc", "make", "flex", "bison", "bc", "perl", "patch", "cpio", "i2cget",
                 "rdma"):
        src = shutil.which(tool) or os.path.join("/usr/sbin", tool)
        if os.path.exists(src):
            os.symlink(src, bindir / tool)
    env = dict(os.environ, PATH=str(bindir))
    p = run("run", "--series", "none", "--output", str(tmp_path / "o"), env=env)
    _critical(p, "deps", "qemu-system-x86_64")
    assert "apt-get install -y" in p.stderr and "qemu-system-x86" in p.stderr
    assert len([l for l in p.stderr.splitlines() if l.startswith("CRITICAL")]) == 1
    assert not (tmp_path / "o").exists()


def test_a_device_workloads_program_is_a_dependency_too(tmp_path):
    """devices.json names the programs its workloads run; verify checks them up front."""
    import shutil
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("qemu-system-x86_64", "gcc", "make", "flex", "bison", "bc", "perl", "patch",
                 "cpio", "i2cget"):
        src = shutil.which(tool) or os.path.join("/usr/sbin", tool)
        if os.path.exists(src):
            os.symlink(src, bindir / tool)
    if os.path.exists("/sbin/rdma") or os.path.exists("/usr/sbin/rdma"):
        pytest.skip("rdma is in an sbin directory, which verify always searches")
    env = dict(os.environ, PATH=str(bindir))
    p = run("run", "--series", "none", "--output", str(tmp_path / "o"), env=env)
    _critical(p, "deps", "rdma")
    assert "iproute2" in p.stderr and not (tmp_path / "o").exists()
