"""Shared helpers: paths, the one error type, subprocess with logged, pasteable commands."""
import dataclasses
import os
import shlex
import shutil
import subprocess
import time
from typing import List, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                     os.path.join(os.path.expanduser("~"), ".cache"), "atomic-janitor")
DEFAULT_KSRC = os.path.join(CACHE, "linux-source-6.1")
ARCH = "x86_64"


class VerifyError(Exception):
    """A user-facing failure: one CRITICAL line + remediation lines, never a traceback."""

    def __init__(self, stage: str, message: str, remediation: Sequence[str] = (),
                 details: Sequence[str] = ()):
        super().__init__(message)
        self.stage = stage
        self.message = message
        self.remediation = list(remediation)
        self.details = list(details)

    def render(self) -> str:
        out = [f"CRITICAL: {self.stage}: {self.message}"]
        out += [f"  {d}" for d in self.details]
        out += [f"  -> {r}" for r in self.remediation]
        return "\n".join(out)


@dataclasses.dataclass
class Log:
    """Appends pasteable command lines and their output to one log file."""
    path: str

    def __post_init__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)

    def write(self, text: str) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        with open(self.path, "a", encoding="utf-8", errors="replace") as f:
            f.write(text if text.endswith("\n") else text + "\n")


def quote(argv: Sequence[str]) -> str:
    return shlex.join([str(a) for a in argv])


def run(argv: Sequence[str], log: Optional[Log] = None, cwd: Optional[str] = None,
        env: Optional[dict] = None, check: bool = False, timeout: Optional[float] = None,
        input_text: Optional[str] = None) -> subprocess.CompletedProcess:
    argv = [str(a) for a in argv]
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    if log:
        log.write(f"$ {'cd ' + shlex.quote(cwd) + ' && ' if cwd else ''}{quote(argv)}")
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace",
                           timeout=timeout, input=input_text)
    except FileNotFoundError as e:
        raise VerifyError("setup", f"command not found: {argv[0]}",
                          [f"apt-get install the Debian package that provides {argv[0]}"]) from e
    if log:
        if p.stdout:
            log.write(p.stdout)
        log.write(f"# exit {p.returncode} after {time.monotonic() - t0:.1f}s")
    if check and p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, argv, p.stdout)
    return p


def cc_args() -> List[str]:
    """CC for every kernel and module build: through ccache when it is installed, so that a
    config change (a driver symbol, the demo's PREEMPT_NONE) rebuilds only what it changes
    in effect. The same value everywhere: kbuild rebuilds an object whose command changed."""
    return ["CC=ccache gcc"] if shutil.which("ccache") else []


def make_argv(work: str, build: str, targets: Sequence[str], jobs: int,
              extra: Sequence[str] = ()) -> List[str]:
    """The kernel make command line; ARCH is always explicit (tinyconfig on x86 would give i386)."""
    return ["make", "-C", work, f"O={build}", f"ARCH={ARCH}", f"-j{jobs}", *cc_args(), *extra,
            *targets]


def default_jobs() -> int:
    return os.cpu_count() or 1
