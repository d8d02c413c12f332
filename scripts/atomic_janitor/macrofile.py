"""Parse recovery: the tree's own attribute-like macros, as a Coccinelle macro file.

Vendor drivers put their own decorators before function heads (`RTW_ATTR static int f(...)`,
`#define RTW_ATTR __attribute__((section(".rtw")))`). spatch does not expand a macro whose
body is an attribute, so it cannot parse such a function: its calls are lost and its callers
are unknown. Told that these names expand to nothing (`--macro-file`), it parses them. Only
macros whose body is nothing but attributes and qualifiers are listed, so no code changes
meaning; names Coccinelle's own standard.h knows are left to it. The file depends on the
whole tree only (never on SCOPE), and its digest is part of every spatch cache key."""

import hashlib
import os
import re
import subprocess

from . import deps
from .atomicio import write_text

STANDARD_H = "/usr/lib/coccinelle/standard.h"
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?[ \t]+(.*?)\s*$")
# Attributes and the function-head keywords only: a body with any other word (a type, as in
# `#define __aligned_u64 __u64 __attribute__((aligned(8)))`) is no decorator.
_ATTR_TOKEN = r"(?:__attribute__\s*\(\(.*?\)\)|inline|noinline|__inline|__inline__|__always_inline|static|notrace)"
_ATTR_BODY = re.compile(r"^(?:%s\s*)+$" % _ATTR_TOKEN)


_DEFINE_ANY = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?(.*)$")


def _is_attr_define(m):
    body = m.group(3).strip()
    return "__attribute__" in body and not body.endswith("\\") and _ATTR_BODY.match(body) is not None


def attribute_macros(lines, known=frozenset()):
    """{name: params or ""} for the `#define`s among `lines` whose body is only attributes,
    at least one of them __attribute__((...)), and whose name Coccinelle does not know."""
    out = {}
    for line in lines:
        m = _DEFINE.match(line)
        if not m or m.group(3).endswith("\\") or "__attribute__" not in m.group(3):
            continue
        name, params, body = m.group(1), m.group(2) or "", m.group(3)
        if name in known:
            continue
        if _ATTR_BODY.match(body):
            out.setdefault(name, params)
    return out


def _known():
    try:
        with open(STANDARD_H, encoding="utf-8", errors="replace") as fh:
            return frozenset(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)", fh.read(), re.M))
    except OSError:
        return frozenset()


# Where a kernel tree's drivers find their decorators; tools/ and arch/ hold user-space and
# per-architecture macros that no driver file sees. Fixed, never SCOPE.
KERNEL_DIRS = ("drivers", "sound", "include")


def _grep(root, pattern, dirs):
    rg = deps.ripgrep()
    if rg:
        argv = [rg, "--no-filename", "--no-line-number", "-g", "*.[ch]", "-e", pattern, *dirs]
    else:
        argv = ["grep", "-rhE", "--include=*.c", "--include=*.h", pattern, *dirs]
    res = subprocess.run(argv, cwd=root, capture_output=True, text=True, errors="replace", check=False)
    return sorted(set(res.stdout.splitlines()))


def _dirs(tree):
    if tree.kind != "kernel":
        return ["."]
    return [d for d in KERNEL_DIRS if os.path.isdir(os.path.join(tree.root, d))] or ["."]


def build(tree, store_dir):
    """The macro file for `tree` (a path in the cache), or None when the tree has no such
    macro. Deterministic: sorted names, one `#define` a line."""
    dirs = _dirs(tree)
    macros = attribute_macros(_grep(tree.root, r"^\s*#\s*define\s+\w+.*__attribute__", dirs), _known())
    if macros:
        # A name defined anywhere else with another body is not a decorator everywhere.
        alt = "|".join(sorted(macros))
        others = _grep(tree.root, r"^\s*#\s*define\s+(%s)\b" % alt, dirs)
        for name in {m.group(1) for m in map(_DEFINE_ANY.match, others) if m and not _is_attr_define(m)}:
            macros.pop(name, None)
    if not macros:
        return None
    text = "// atomic-janitor: attribute-like macros of this tree, expanded to nothing\n" + "".join(
        f"#define {name}{params}\n" for name, params in sorted(macros.items()))
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = os.path.join(store_dir, f"macros-{digest}.h")
    if not os.path.exists(path):
        write_text(path, text)
    return path
