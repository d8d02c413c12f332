"""The device map (devices.json): which touched files the guest drives, and why the others
cannot run in QEMU. A patched function that the map says is driven and that ran 0 times
fails verify; every other function with 0 hits is reported with the reason it is not
reachable, so "not executed" is never silent."""
import dataclasses
import json
import os
from typing import List, Optional

from .common import HERE, VerifyError

MAP = os.path.join(HERE, "devices.json")


@dataclasses.dataclass(frozen=True)
class Device:
    name: str
    paths: tuple
    kconfig: tuple
    qemu: tuple
    guest: tuple
    workload: str
    programs: tuple = ()     # (program, Debian package): run by the workload, copied with libs
    # functions of the driven files that the device never runs: (function, why); a patched
    # one is reported with the reason instead of failing the stage
    not_driven: tuple = ()


@dataclasses.dataclass(frozen=True)
class DeviceMap:
    devices: tuple
    no_model: tuple          # (paths, reason)


def _matches(path: str, patterns) -> bool:
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in patterns)


def load(path: str = MAP) -> DeviceMap:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        devs = tuple(Device(d["name"], tuple(d["paths"]), tuple(d.get("kconfig", ())),
                            tuple(d.get("qemu", ())), tuple(d.get("guest", ())),
                            d.get("workload", ""), tuple(sorted(d.get("programs", {}).items())),
                            tuple(sorted(d.get("not_driven", {}).items())))
                     for d in doc["devices"])
        nm = tuple((tuple(e["paths"]), e["reason"]) for e in doc.get("no_model", ()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise VerifyError("config", f"cannot read the device map {path}: {exc}",
                          ["restore qemu-verify/devices.json from git"]) from None
    return DeviceMap(devs, nm)


def driver_of(dm: DeviceMap, path: str) -> Optional[Device]:
    return next((d for d in dm.devices if _matches(path, d.paths)), None)


def touched_devices(dm: DeviceMap, files: List[str]) -> List[Device]:
    seen = []
    for f in files:
        d = driver_of(dm, f)
        if d and d not in seen:
            seen.append(d)
    return seen


def unreachable_reason(dm: DeviceMap, path: str, built: bool, build_reason: Optional[str],
                       function: Optional[str] = None) -> Optional[str]:
    """None when the map drives the file (and the function) in a kernel that builds it;
    else why it cannot run."""
    if not built:
        return "not built into the x86_64 test kernel" + (f" ({build_reason})" if build_reason else "")
    d = driver_of(dm, path)
    if d:
        why = dict(d.not_driven).get(function) if function else None
        return f"{d.name} does not run {function}(): {why}" if why else None
    for paths, reason in dm.no_model:
        if _matches(path, paths):
            return reason
    return f"no device in qemu-verify/devices.json drives {path}"
