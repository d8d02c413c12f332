"""Make sure the Debian packages a stage needs are there: install them as root, else say how."""

import os
import shutil
import subprocess
import sys

from .errors import JanitorError


def _apt_install(packages, why):
    cmd = "apt-get update && apt-get install -y " + " ".join(packages)
    if os.geteuid() != 0:
        raise JanitorError(f"{why}: Debian package(s) {', '.join(packages)} missing",
                           f"run as root: {cmd}")
    print(f"atomic-janitor: installing {' '.join(packages)} ({why})", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for argv in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *packages]):
        res = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, check=False)
        if res.returncode != 0:
            last = (res.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise JanitorError(f"{' '.join(argv[:2])} failed: {last}", f"try by hand: {cmd}")


def ensure_spatch():
    if shutil.which("spatch") is None:
        _apt_install(["coccinelle"], "spatch (Coccinelle) is needed to scan")
    return shutil.which("spatch")


def ripgrep():
    """rg when installed (installing it as root): it reads the tree on every core, ~2x
    faster than grep -r for the prefilter. None means fall back to grep."""
    if shutil.which("rg") is None and os.geteuid() == 0:
        try:
            _apt_install(["ripgrep"], "the prefilter searches the tree faster with ripgrep")
        except JanitorError as err:
            print(f"atomic-janitor: {err}; using grep", file=sys.stderr)
    return shutil.which("rg")


# Debian's spatch embeds Debian's python3. Left to itself it runs the first `python3` on
# PATH to find it; behind a version manager's shim that costs ~0.6 s per spatch process.
SYSTEM_PYTHON = "/usr/bin/python3"


def spatch_command():
    """argv prefix for every spatch run: the executable, and its Python named outright."""
    exe = ensure_spatch()
    return [exe, "--python", SYSTEM_PYTHON] if os.path.exists(SYSTEM_PYTHON) else [exe]


def spatch_env(**extra):
    """The environment of every spatch run. spatch's parser allocates much short-lived
    data: a minor heap of 1M words (OCaml's default is 256k) makes it about 8% faster on
    kernel files, with the same output. A user's own OCAMLRUNPARAM wins."""
    env = dict(os.environ, **extra)
    env.setdefault("OCAMLRUNPARAM", "s=1M")
    return env


def ensure_linux_source(version="6.1"):
    tarball = f"/usr/src/linux-source-{version}.tar.xz"
    if not os.path.exists(tarball):
        _apt_install([f"linux-source-{version}"], f"the default tree is Debian's linux-source-{version}")
    if not os.path.exists(tarball):
        raise JanitorError(f"{tarball} is missing after installing linux-source-{version}")
    return tarball
