"""Which functions a patch changes, as kprobe targets (hit counts = "executed in the guest").

Kernel style puts a function's opening and closing braces in column 0, so the enclosing
function of a changed line is found by walking back to the nearest column-0 "{" (a column-0
"}" first means the line is outside any function) and reading the name before its "(".
Static inline functions in a local header cannot be probed: their callers in the .c files of
the same directory (and of inline callers, transitively) are probed instead.
"""
import os
import re
from typing import Dict, List, Optional, Sequence, Set

_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_NOT_FUNC = {"if", "for", "while", "switch", "return", "sizeof", "__attribute__",
             "__printf", "__must_check", "__acquires", "__releases", "typeof", "__section"}


def enclosing_function(lines: Sequence[str], lineno: int) -> Optional[str]:
    """lines: file content; lineno: 1-based."""
    i = min(lineno, len(lines)) - 1
    while i >= 0:
        l = lines[i]
        if l.startswith("}"):
            return None
        if l.startswith("{"):
            break
        i -= 1
    if i < 0:
        return None
    # declaration: the lines above "{" back to a blank line, a ';', '}' or a '#' line
    decl = []
    j = i - 1
    while j >= 0 and len(decl) < 8:
        l = lines[j]
        if not l.strip() or l.rstrip().endswith((";", "}")) or l.startswith("#") or \
                l.rstrip().endswith("*/"):
            break
        decl.insert(0, l)
        j -= 1
    for m in _NAME.finditer(" ".join(decl)):
        if m.group(1) not in _NOT_FUNC and not m.group(1).isupper():
            return m.group(1)
    return None


def is_inline_in(text: str, name: str) -> bool:
    return re.search(r"static\s+(__always_)?inline\b[^;{]*\b" + re.escape(name) + r"\s*\(",
                     text) is not None


def callers(text: str, name: str) -> List[str]:
    lines = text.splitlines()
    out = []
    for no, l in enumerate(lines, 1):
        if re.search(r"\b" + re.escape(name) + r"\s*\(", l) and not l.startswith((" *", "/*")):
            f = enclosing_function(lines, no)
            if f and f != name and f not in out:
                out.append(f)
    return out


def functions_for_patch(work: str, changed: Dict[str, List[int]]) -> Dict[str, List[str]]:
    """file -> function names to probe (in the files that contain them)."""
    out: Dict[str, List[str]] = {}
    for path in sorted(changed):
        full = os.path.join(work, path)
        if not os.path.exists(full) or not path.endswith((".c", ".h")):
            continue
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.splitlines()
        funcs = []
        for ln in changed[path]:
            fn = enclosing_function(lines, ln)
            if fn and fn not in funcs:
                funcs.append(fn)
        if path.endswith(".c"):
            probe = [f for f in funcs if not is_inline_in(text, f)]
            if probe:
                out.setdefault(path, []).extend(probe)
            continue
        # header: chase inline functions to their callers in the directory's .c files
        d = os.path.dirname(path)
        todo, seen = list(funcs), set()
        depth = 0
        while todo and depth < 4:
            depth += 1
            nxt = []
            for fn in todo:
                if fn in seen:
                    continue
                seen.add(fn)
                for c in callers(text, fn):       # inline callers in the same header
                    if is_inline_in(text, c):
                        nxt.append(c)
                for src in sorted(os.listdir(os.path.join(work, d))):
                    if not src.endswith(".c"):
                        continue
                    with open(os.path.join(work, d, src), encoding="utf-8",
                              errors="replace") as f:
                        ctext = f.read()
                    for c in callers(ctext, fn):
                        rel = os.path.join(d, src)
                        if is_inline_in(ctext, c):
                            nxt.append(c)
                        elif c not in out.get(rel, []):
                            out.setdefault(rel, []).append(c)
            todo = nxt
    return out


def event_name(patch_index: int, func: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", f"p{patch_index}_{func}")[:60]


def resolve_symbols(objects: Sequence[str], func: str) -> List[str]:
    """The symbols GCC really emitted for func in these objects: func itself or its clones
    (func.constprop.0, func.isra.0, func.part.0, ...). Empty when it was inlined away."""
    import subprocess
    found: List[str] = []
    for obj in objects:
        if not os.path.exists(obj):
            continue
        p = subprocess.run(["nm", "--defined-only", obj], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        for line in p.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tT":
                sym = parts[2]
                if (sym == func or sym.startswith(func + ".")) and sym not in found:
                    found.append(sym)
    return sorted(found)
