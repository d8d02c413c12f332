"""Stage "deps": everything verify runs, checked before anything is built (issue 12), so a
missing package costs a second, not a kernel build. The Debian package of each, for the
one-line message; `make verify` installs them as root (make packages), as `make scan` does."""
import os
import shutil
from typing import List, Tuple

from . import devices
from .common import VerifyError

# (what verify runs or reads, Debian package): programs on PATH, or absolute paths
NEEDS: List[Tuple[str, str]] = [
    ("qemu-system-x86_64", "qemu-system-x86"),
    ("/bin/busybox", "busybox-static"),          # initramfs.BUSYBOX: the guest's userspace
    ("i2cget", "i2c-tools"),                      # the i2c tests in the guest
    ("gcc", "gcc"), ("make", "make"), ("flex", "flex"), ("bison", "bison"), ("bc", "bc"),
    ("perl", "perl"), ("patch", "patch"), ("cpio", "cpio"),
    ("/usr/include/libelf.h", "libelf-dev"),      # objtool
    ("/usr/include/openssl/ssl.h", "libssl-dev"),  # scripts/sign-file, certs
]
SBIN = ("/usr/sbin", "/sbin")


def where(what: str) -> str:
    """The path of a program (on PATH or in an sbin directory), or "" when it is missing."""
    if what.startswith("/"):
        return what if os.path.exists(what) else ""
    return shutil.which(what) or next(
        (os.path.join(d, what) for d in SBIN if os.path.exists(os.path.join(d, what))), "")


def _present(what: str) -> bool:
    return bool(where(what))


def missing() -> List[Tuple[str, str]]:
    # the device workloads' programs too (devices.json), whichever device a series touches:
    # the check has to come before the config that says which ones it touches
    needs = NEEDS + [(prog, pkg) for d in devices.load().devices for prog, pkg in d.programs]
    return [(w, p) for w, p in needs if not _present(w)]


def check() -> None:
    """Raise one VerifyError naming every missing piece and the command that installs it."""
    gone = missing()
    if gone:
        pkgs = " ".join(sorted({p for _w, p in gone}))
        raise VerifyError("deps", "missing before any build: " + ", ".join(w for w, _p in gone),
                          [f"apt-get update && apt-get install -y {pkgs}   (or, as root: make setup)"])
