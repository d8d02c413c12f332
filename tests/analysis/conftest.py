import json
import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE = os.path.join(REPO, "tests", "fixtures", "classify", "tree")


@pytest.fixture(scope="session")
def fixture_findings(tmp_path_factory):
    """One scan of the fixture driver tree (SCOPE=drivers, no cache), shared by the tests."""
    if not shutil.which("spatch"):
        pytest.skip("spatch not installed")
    out = tmp_path_factory.mktemp("classify")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "scripts"),
               XDG_CACHE_HOME=str(out / "cache"))
    res = subprocess.run([sys.executable, "-m", "atomic_janitor", "scan", "--ksrc", FIXTURE, "--scope", "drivers",
                          "--output", str(out), "--keep-going", "--no-cache"],
                         env=env, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    with open(out / "tree" / "findings.json", encoding="utf-8") as fh:
        doc = json.load(fh)
    return {f["function"] or f["macro"]: f for f in doc["findings"]}
