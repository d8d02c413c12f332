"""Top-level fixtures; helpers live in ajtest.py (a unique module name, since several
test directories have a conftest.py of their own)."""

from ajtest import isolated_cache, tree61  # noqa: F401  (pytest fixtures)
