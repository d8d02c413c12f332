"""Top-level fixtures; helpers live in ajtest.py (a unique module name, since several
test directories have a conftest.py of their own)."""

import pytest

from ajtest import isolated_cache, tree61  # noqa: F401  (pytest fixtures)


@pytest.hookimpl(tryfirst=True)     # before xdist's own hook reads the marks
def pytest_collection_modifyitems(config, items):
    """Two lanes for `make test` (pytest-xdist, --dist loadgroup): the QEMU tests, which
    build two kernels and boot them one after another, and everything else. Each lane runs
    in collection order on a worker of its own, so the scans and the kernel builds share
    the machine's cores instead of taking turns; within a lane nothing changes. Without
    xdist the mark does nothing."""
    for item in items:
        lane = "qemu" if item.get_closest_marker("qemu") else "main"
        item.add_marker(pytest.mark.xdist_group(lane))
