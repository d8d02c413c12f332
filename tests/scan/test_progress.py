"""Long steps show progress on a terminal and stay quiet in CI and pipes."""

import io
import os
import sys

from ajtest import REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
from atomic_janitor.progress import Progress  # noqa: E402


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def _run(tty):
    s = _Stream(tty)
    p = Progress("patches: fixing", 3, stream=s, unit="patches")
    for _ in range(3):
        p.step()
    p.close()
    return s.getvalue()


def test_progress_on_a_terminal_counts_up_in_its_unit():
    out = _run(True)
    assert "patches: fixing: 1/3 patches" in out and "3/3 patches" in out and out.endswith("\n")


def test_progress_is_silent_when_not_a_terminal():
    assert _run(False) == ""
