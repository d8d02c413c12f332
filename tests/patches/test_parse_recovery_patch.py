"""A site proven in a function that spatch parses only with the tree's macro file gets its
patch too: the fix rules see the same macro file as the scan."""

import os
import shutil
import subprocess

from patches_support import FROM, REPO, env_for

FIXTURE = os.path.join(REPO, "tests", "fixtures", "classify", "tree")


def test_a_decorated_function_is_patched(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURE, tree)
    env = env_for(str(tmp_path))
    py = "/usr/bin/python3"
    res = subprocess.run([py, "-m", "atomic_janitor", "scan", "--ksrc", str(tree), "--scope", "drivers/fxv",
                          "--output", str(tmp_path / "r"), "--keep-going"], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    res = subprocess.run([py, "-m", "atomic_janitor", "patches", "--ksrc", str(tree), "--reports",
                          str(tmp_path / "r"), "--output", str(tmp_path / "p"), "--from", FROM],
                         env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "1 patch(es), 0 skipped" in res.stdout, res.stdout + res.stderr
    patch = next((tmp_path / "p" / "tree").glob("*/0001-*.patch")).read_text()
    assert "-\treturn kmalloc(16, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);" in patch
    assert "+\treturn kmalloc(16, GFP_ATOMIC);" in patch
