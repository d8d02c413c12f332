"""Shared fixtures: the repo's scripts on sys.path, Debian's Python, the cached 6.1 tree."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
FIXTURES = os.path.join(REPO, "tests", "fixtures")
PYTHON = "/usr/bin/python3"


def run_cli(*args, env=None, cwd=REPO):
    """Run `python3 -m atomic_janitor ...` as make does; returns CompletedProcess."""
    full_env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "scripts"))
    if env:
        full_env.update(env)
    return subprocess.run([PYTHON, "-m", "atomic_janitor", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, check=False)


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    """A private cache dir, so cache tests see cold and warm runs of their own."""
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


@pytest.fixture(scope="session")
def tree61():
    """Debian's linux-source-6.1, unpacked once into the user cache (never modified)."""
    from atomic_janitor import tree
    try:
        return tree.resolve(None)
    except Exception as exc:  # noqa: BLE001 - reported as the reason
        pytest.fail(f"cannot set up Debian's linux-source-6.1: {exc}")
