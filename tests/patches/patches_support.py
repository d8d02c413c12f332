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


# The fixture tree's own checkpatch/get_maintainer are the kernel's, taken from Debian's 6.1
# tree at test time rather than committed as copies.
KERNEL_SCRIPTS = ("checkpatch.pl", "get_maintainer.pl", "spelling.txt", "const_structs.checkpatch")


@pytest.fixture
def fxtree(tmp_path):
    sys.path.insert(0, os.path.join(REPO, "scripts"))
    from atomic_janitor import tree
    kernel = tree.resolve(None)
    dst = tmp_path / "src" / "linux-fixture"
    shutil.copytree(os.path.join(FIX, "linux-fixture"), dst)
    os.makedirs(dst / "scripts", exist_ok=True)
    for name in KERNEL_SCRIPTS:
        shutil.copy2(os.path.join(kernel.root, "scripts", name), dst / "scripts" / name)
    return str(dst)
