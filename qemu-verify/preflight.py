"""Stage "deps": everything verify runs, checked before anything is built (issue 12), so a
missing package costs a second, not a kernel build. The Debian package of each, for the
one-line message; `make verify` installs them as root (make packages), as `make scan` does."""
import os
import shutil
from typing import List, Tuple

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


def _present(what: str) -> bool:
    if what.startswith("/"):
        return os.path.exists(what)
    return bool(shutil.which(what)) or any(os.path.exists(os.path.join(d, what)) for d in SBIN)


def missing() -> List[Tuple[str, str]]:
    return [(w, p) for w, p in NEEDS if not _present(w)]


def check() -> None:
    """Raise one VerifyError naming every missing piece and the command that installs it."""
    gone = missing()
    if gone:
        pkgs = " ".join(sorted({p for _w, p in gone}))
        raise VerifyError("deps", "missing before any build: " + ", ".join(w for w, _p in gone),
                          [f"apt-get update && apt-get install -y {pkgs}   (or, as root: make setup)"])
