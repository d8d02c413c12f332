import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "patches")
FROM = "Jane Janitor <jane@example.org>"


def env_for(tmp):
    """No user identity leaks in: a fresh HOME and no global/system git config."""
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    return dict(os.environ, HOME=home, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
                PYTHONPATH=os.path.join(REPO, "scripts"), LC_ALL="C")


def run_patches(tmp, tree, out, findings=None, *extra):
    argv = [sys.executable if sys.executable.startswith("/usr/bin") else "/usr/bin/python3",
            "-m", "atomic_janitor.patches", "--ksrc", tree, "--output", out,
            "--findings", findings or os.path.join(FIX, "findings.json"), *extra]
    return subprocess.run(argv, env=env_for(tmp), capture_output=True, text=True, check=False)


@pytest.fixture
def fxtree(tmp_path):
    dst = tmp_path / "src" / "linux-fixture"
    shutil.copytree(os.path.join(FIX, "linux-fixture"), dst)
    return str(dst)
