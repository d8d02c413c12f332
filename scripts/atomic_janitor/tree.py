"""The kernel tree (or out-of-tree module directory) being scanned: where, what, which files."""

import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from . import deps
from .errors import JanitorError

DEFAULT_VERSION = "6.1"
SOURCE_SUFFIXES = (".c", ".h")


def cache_root():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "atomic-janitor")


@dataclass(frozen=True)
class Tree:
    root: str      # absolute, real path
    name: str      # basename: reports/<name>/
    version: str   # "6.1.192", or None for a module directory
    kind: str      # "kernel" or "module-dir"

    def to_json(self):
        return {"name": self.name, "version": self.version, "kind": self.kind}


def kernel_version(root):
    try:
        with open(os.path.join(root, "Makefile"), encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    parts = {}
    for key in ("VERSION", "PATCHLEVEL", "SUBLEVEL", "EXTRAVERSION"):
        m = re.search(rf"^{key}\s*=\s*(\S*)\s*$", head, re.M)
        parts[key] = m.group(1) if m else None
    if not parts["VERSION"] or not parts["PATCHLEVEL"]:
        return None
    ver = f"{parts['VERSION']}.{parts['PATCHLEVEL']}"
    if parts["SUBLEVEL"]:
        ver += f".{parts['SUBLEVEL']}"
    return ver + (parts["EXTRAVERSION"] or "")


def default_tree_path(version=DEFAULT_VERSION):
    return os.path.join(cache_root(), f"linux-source-{version}")


def unpack_default(version=DEFAULT_VERSION):
    """Unpack Debian's linux-source once into the cache; a half-unpacked tree never has the final name."""
    final = default_tree_path(version)
    if os.path.isdir(final):
        return final
    tarball = deps.ensure_linux_source(version)
    os.makedirs(cache_root(), exist_ok=True)
    # two runs at once (make test's two workers) unpack it once: the second one waits
    with open(os.path.join(cache_root(), f".unpack-{version}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isdir(final):
            return final
        return _unpack(tarball, version, final)


def _unpack(tarball, version, final):
    tmp = tempfile.mkdtemp(prefix=f".unpack-{version}-", dir=cache_root())
    try:
        res = subprocess.run(["tar", "-xJf", tarball, "-C", tmp], capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise JanitorError(f"cannot unpack {tarball}: {res.stderr.strip()[:200]}")
        inner = os.path.join(tmp, f"linux-source-{version}")
        if not os.path.isdir(inner):
            raise JanitorError(f"{tarball} does not contain linux-source-{version}/")
        os.rename(inner, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def _has_c_files(root):
    for _dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        if any(f.endswith(SOURCE_SUFFIXES) for f in filenames):
            return True
    return False


def resolve(ksrc):
    """KSRC as given by the user (None: the default Debian tree; a bare version such as 6.12:
    Debian's linux-source of that version) -> Tree, or a one-line error."""
    debian = re.fullmatch(r"(?:linux-source-)?(\d+\.\d+)", ksrc or "")
    if not ksrc:
        root = unpack_default()
    elif debian and not os.path.exists(ksrc):
        # KSRC=6.12 (or linux-source-6.12): Debian's linux-source package of that version.
        root = unpack_default(debian.group(1))
    else:
        root = os.path.abspath(os.path.expanduser(ksrc))
        if not os.path.exists(root):
            raise JanitorError(f"KSRC {ksrc} does not exist",
                               "give KSRC=<kernel tree or module directory>")
        if not os.path.isdir(root):
            raise JanitorError(f"KSRC {ksrc} is not a directory",
                               "give KSRC=<kernel tree or module directory>")
        if not os.access(root, os.R_OK | os.X_OK):
            raise JanitorError(f"KSRC {ksrc} is not readable")
        if not _has_c_files(root):
            raise JanitorError(f"KSRC {ksrc} contains no C files (*.c, *.h)",
                               "give KSRC=<kernel tree or module directory>")
    root = os.path.realpath(root)
    version = kernel_version(root)
    is_kernel = version is not None and os.path.exists(os.path.join(root, "Kconfig"))
    return Tree(root=root, name=os.path.basename(root), version=version if is_kernel else None,
                kind="kernel" if is_kernel else "module-dir")


def walk_sources(root):
    """Every .c/.h file under root as (relpath, size, mtime_ns), sorted; dot-dirs skipped."""
    out = []
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, rel) if rel else root))
        except OSError:
            continue
        for ent in entries:
            if ent.name.startswith("."):
                continue
            path = f"{rel}/{ent.name}" if rel else ent.name
            try:
                if ent.is_dir(follow_symlinks=False):
                    stack.append(path)
                elif ent.name.endswith(SOURCE_SUFFIXES) and ent.is_file(follow_symlinks=False):
                    st = ent.stat(follow_symlinks=False)
                    out.append((path, st.st_size, st.st_mtime_ns))
            except OSError:
                continue
    out.sort()
    return out
