"""Stage "boot": run the test kernel under QEMU with a hard timeout and capture the console.

QEMU is started with an argv list (never a shell string) and the command is echoed
shlex-quoted so it can be pasted. -no-reboot + panic=-1 turn a panic or a reboot into a QEMU
exit; the only verdict is the isa-debug-exit code written by aj_exit.ko:
exit status (code << 1) | 1.  Anything else (0 = reboot without verdict, a signal, the
timeout) is a crash.  TCG unless a probe showed KVM boots (/dev/kvm present and usable).
"""
import dataclasses
import json
import os
import shutil
import subprocess
import threading
import time
from typing import List, Optional, Sequence

from .common import CACHE, HERE, Log, VerifyError, quote

QEMU_CONFIG = os.path.join(HERE, "qemu_configs", "x86_64.json")


def qemu_config() -> dict:
    with open(QEMU_CONFIG) as f:
        return json.load(f)


def qemu_argv(kernel: str, initrd: str, accel: str = "tcg", append_extra: List[str] = (),
              cfg: Optional[dict] = None, extra_args: Sequence[str] = ()) -> List[str]:
    cfg = cfg or qemu_config()
    append = [f"console={cfg['console']}", *cfg["extra_append"], *append_extra]
    return [cfg["qemu"], "-machine", f"{cfg['machine']},accel={accel}", "-m", cfg["memory"],
            "-smp", cfg["smp"], "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
            "-device", cfg["exit_device"], "-kernel", kernel, "-initrd", initrd,
            "-append", " ".join(append), *extra_args]


# The kernel prints this when it hands over to the initramfs: before it, only the kernel's
# own boot runs, which the patched drivers and the tests do not touch.
USERSPACE = b"Run /init as init process"
# A boot with no console output for this long before USERSPACE has stalled. Seen under TCG
# on a loaded host: "tsc: Unable to calibrate against PIT" and no reference clock, then
# nothing after the RCU-tasks self test; the same kernel boots on the next try.
STALL_SECS = 60.0


@dataclasses.dataclass
class BootResult:
    argv: List[str]
    exit_status: Optional[int]     # QEMU's exit status, None if killed by the timeout
    timed_out: bool
    seconds: float
    console: str
    verdict_code: Optional[int]    # aj_exit code, None when QEMU did not exit through it
    stalled: bool = False          # killed: no console output for STALL_SECS before userspace
    retried_after: Optional[float] = None   # seconds of a first boot that stalled

    def describe(self) -> str:
        again = f" (second boot: the first stalled before userspace after {self.retried_after:.0f}s)" \
            if self.retried_after is not None else ""
        return self._describe() + again

    def _describe(self) -> str:
        if self.stalled:
            return f"stalled before userspace (no console output for {STALL_SECS:.0f}s)"
        if self.timed_out:
            return f"timed out after {self.seconds:.0f}s"
        if self.verdict_code is None:
            return f"QEMU exited {self.exit_status} without a verdict (reboot, panic or crash)"
        return {0: "guest verdict pass", 1: "guest verdict fail",
                3: "guest script never set a verdict"}.get(self.verdict_code,
                                                           f"guest verdict code {self.verdict_code}")


def decode_exit(status: Optional[int]) -> Optional[int]:
    """isa-debug-exit: QEMU exits (code << 1) | 1; even statuses never come from it."""
    if status is None or status < 0 or status % 2 == 0:
        return None
    return status >> 1


KVM_PROBE = os.path.join(CACHE, "verify", "kvm-probe.json")


def pick_accel(log: Log, kernel: Optional[str] = None, initrd: Optional[str] = None) -> str:
    """TCG unless /dev/kvm is usable *and* a probe boot with KVM reached a verdict (DESIGN
    7.5: -enable-kvm hangs on some of these hosts). The probe runs once (30 s timeout) and
    its answer is cached in ~/.cache/atomic-janitor/verify/kvm-probe.json. AJ_ACCEL=tcg|kvm
    overrides."""
    if os.environ.get("AJ_ACCEL") in ("tcg", "kvm"):
        return os.environ["AJ_ACCEL"]
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    try:
        with open(KVM_PROBE) as f:
            return "kvm" if json.load(f).get("boots") else "tcg"
    except (OSError, ValueError):
        pass
    if not (kernel and initrd):
        return "tcg"
    r = boot(kernel, initrd, KVM_PROBE + ".console", 30, log, accel="kvm")
    ok = r.verdict_code is not None
    os.makedirs(os.path.dirname(KVM_PROBE), exist_ok=True)
    with open(KVM_PROBE, "w") as f:
        json.dump({"boots": ok, "how": r.describe()}, f)
    return "kvm" if ok else "tcg"


def boot(kernel: str, initrd: str, console_path: str, timeout: float, log: Log,
         accel: str = "tcg", append_extra: List[str] = (), cfg: Optional[dict] = None,
         extra_args: Sequence[str] = ()) -> BootResult:
    """Boot once; a boot that stalls before userspace is tried once more, and says so (a
    kernel that stalls there every time still fails: the retry stalls too)."""
    br = _boot_once(kernel, initrd, console_path, timeout, log, accel, append_extra, cfg,
                    extra_args)
    if br.stalled:
        log.write(f"# boot stalled before userspace (no console output for {STALL_SECS:.0f}s): retrying once")
        first = br.seconds
        br = _boot_once(kernel, initrd, console_path, timeout, log, accel, append_extra, cfg,
                    extra_args)
        br.retried_after = first
    return br


def _boot_once(kernel, initrd, console_path, timeout, log, accel, append_extra, cfg,
                    extra_args) -> BootResult:
    cfg = cfg or qemu_config()
    if not shutil.which(cfg["qemu"]):
        raise VerifyError("boot", f"{cfg['qemu']} not found", ["apt-get install qemu-system-x86"])
    argv = qemu_argv(kernel, initrd, accel, append_extra, cfg, extra_args)
    log.write(f"$ {quote(argv)}")
    os.makedirs(os.path.dirname(console_path), exist_ok=True)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    timed_out = threading.Event()

    def killer():
        timed_out.set()
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()

    timer = threading.Timer(timeout, killer)
    timer.daemon = True
    timer.start()
    chunks = []
    last = [time.monotonic()]
    in_userspace = threading.Event()
    stalled = threading.Event()

    def watchdog():
        while proc.poll() is None and not in_userspace.is_set():
            if time.monotonic() - last[0] > STALL_SECS:
                stalled.set()
                killer()
                return
            time.sleep(1.0)
    threading.Thread(target=watchdog, daemon=True).start()
    try:
        with open(console_path + ".tmp", "wb") as out:
            for chunk in iter(lambda: proc.stdout.read1(65536), b""):
                out.write(chunk)
                chunks.append(chunk)
                last[0] = time.monotonic()
                if USERSPACE in b"".join(chunks[-2:]):      # the marker may span two reads
                    in_userspace.set()
        status = proc.wait()
    except KeyboardInterrupt:
        proc.kill()
        raise
    finally:
        timer.cancel()
        in_userspace.set()
    secs = time.monotonic() - t0
    os.replace(console_path + ".tmp", console_path)
    console = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    to = timed_out.is_set()
    log.write(f"# qemu exit {status} after {secs:.1f}s{' (timeout)' if to else ''}")
    br = BootResult(argv, None if to else status, to, secs, console, None if to else decode_exit(status))
    br.stalled = stalled.is_set()
    return br
