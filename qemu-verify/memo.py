"""Compile results remembered between runs: a warm verify of a series whose touched files did
not change skips the per-patch W=1 builds (and the compile matrix's `make prepare`), and one
that changed a driver rebuilds only the patches from that one on.

The key is everything the result depends on that a run can change: what was built (the
test kernel's config, or the matrix configuration with its compiler), the objects, the
compiler, and the contents of every file the series touches as they stand at that point of
the series. The rest of the work copy is KSRC's, which the work copy itself already takes to
be unchanged between runs (apply.WorkTree). Only successful builds are remembered: a failure
is built again, so its log is always fresh."""
import hashlib
import json
import os
import subprocess
from typing import Optional, Sequence


def _compiler() -> str:
    try:
        p = subprocess.run(["gcc", "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return (p.stdout.splitlines() or [""])[0]
    except OSError:
        return ""


class CompileMemo:
    def __init__(self, path: str):
        self.path = path
        try:
            with open(path) as f:
                self.data = json.load(f)
        except (OSError, ValueError):
            self.data = {}
        self.compiler = _compiler()
        self.used = {}
        self.hits = []

    def key(self, what: str, objs: Sequence[str], src: str, files: Sequence[str]) -> str:
        h = hashlib.sha256()
        h.update(f"{what}\0{self.compiler}\0{','.join(sorted(objs))}\0".encode())
        for rel in sorted(set(files)):
            h.update(rel.encode() + b"\0")
            try:
                with open(os.path.join(src, rel), "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
            except OSError:
                h.update(b"-absent-")
        return h.hexdigest()

    def get(self, key: str) -> Optional[dict]:
        hit = self.data.get(key)
        if hit is not None:
            self.used[key] = hit
            self.hits.append(key)
        return hit

    def put(self, key: str, result: dict) -> None:
        self.data[key] = self.used[key] = result

    def save(self) -> None:
        """Keep only this run's entries (a long-lived cache would only grow), atomically."""
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.used, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)
