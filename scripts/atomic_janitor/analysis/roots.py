"""Where a driver lives: what lock-helper visibility, cross-driver names and member calls
count as "the same driver"."""


def driver_root(rel, kind):
    """The directory a driver lives in: the whole tree for an out-of-tree module directory,
    else drivers/<class>/<driver> (or the file's directory when shallower)."""
    if kind == "module-dir":
        return ""
    parts = rel.split("/")
    return "/".join(parts[:3]) if len(parts) >= 4 else "/".join(parts[:-1])
