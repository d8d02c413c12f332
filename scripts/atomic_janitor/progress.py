"""Progress on stderr, only when stderr is a terminal (quiet in CI and pipes)."""

import sys
import time


class Progress:
    def __init__(self, label, total, stream=None, unit="files"):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.label = label
        self.unit = unit
        self.total = total
        self.done = 0
        self.start = time.monotonic()

    def step(self, n=1):
        self.done += n
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        eta = ""
        if self.done and self.done < self.total:
            eta = f", ETA {elapsed / self.done * (self.total - self.done):.0f}s"
        self.stream.write(f"\r{self.label}: {self.done}/{self.total} {self.unit}, {elapsed:.1f}s{eta}   ")
        self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
