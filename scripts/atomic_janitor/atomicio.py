"""Write outputs atomically: a temporary name in the same directory, then rename."""

import json
import os
import shutil
import tempfile

from .errors import JanitorError


def write_text(path, text):
    directory = os.path.dirname(path) or "."
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        if "tmp" in locals() and os.path.exists(tmp):
            os.unlink(tmp)
        raise JanitorError(f"cannot write {path}: {exc.strerror}",
                           "check that the output directory is writable and has free space") from None


def dumps_json(obj):
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_json(path, obj):
    write_text(path, dumps_json(obj))


def replace_dir(staging, final):
    """Swap a completely written staging directory into place; the old one survives until then."""
    old = final + ".old"
    if os.path.exists(old):
        shutil.rmtree(old)
    if os.path.exists(final):
        os.rename(final, old)
    os.rename(staging, final)
    if os.path.exists(old):
        shutil.rmtree(old)


def staging_dir(final):
    parent = os.path.dirname(final) or "."
    try:
        os.makedirs(parent, exist_ok=True)
        return tempfile.mkdtemp(prefix=".staging-" + os.path.basename(final) + "-", dir=parent)
    except OSError as exc:
        raise JanitorError(f"cannot write into {parent}: {exc.strerror}",
                           "check that the output directory is writable and has free space") from None
