"""User-facing errors: one CRITICAL line plus remediation, never a traceback (b4 style)."""

import sys


class JanitorError(Exception):
    """An error the user can act on; `hints` are printed indented under the message."""

    def __init__(self, message, *hints, status=1):
        super().__init__(message)
        self.message = message
        self.hints = hints
        self.status = status


class IncompleteScan(JanitorError):
    """The scan finished but some files could not be analysed."""


def report(err):
    print(f"CRITICAL: {err.message}", file=sys.stderr)
    for hint in err.hints:
        print(f"    {hint}", file=sys.stderr)
    return err.status
