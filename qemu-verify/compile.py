"""Per-patch compile test (bisectability) and the Kconfig symbols that enable a file.

For each touched C file: find the object and the Kconfig symbol(s) that build it from the
directory Makefiles (obj-$(CONFIG_X) += f.o, composite objects, parent directories), add the
plain `depends on` symbols of each from Kconfig, and ask for them =y (=m for `depends on m`).
Files under another arch, or whose symbols do not survive olddefconfig on x86_64, are listed as
not compile-tested.  Warnings (W=1) are compared with the same object built unpatched.
"""
import dataclasses
import functools
import os
import re
from typing import Dict, List, Optional, Sequence, Set, Tuple

_OBJ_LINE = re.compile(r"^\s*([A-Za-z0-9_.-]+?)-(y|objs|\$\(CONFIG_([A-Za-z0-9_]+)\))\s*[:+]?=\s*(.*)$")
_KCONFIG_ENTRY = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$")
_IDENT = re.compile(r"!?\s*\b([A-Z][A-Z0-9_]*)\b")


@dataclasses.dataclass
class Unit:
    """How one touched file is compile-tested."""
    file: str
    objects: List[str]                  # objects to build (headers: the .c users in the dir)
    symbols: Dict[str, str]             # Kconfig symbol -> wanted value
    module: Optional[str] = None        # module name when built =m
    reason: Optional[str] = None        # why it is not compile-tested (None = it is)
    obj_symbols: Dict[str, List[str]] = dataclasses.field(default_factory=dict)
    header: bool = False                # objects are the header's users: only those the
                                        # config builds anyway are compile-tested


def _makefile_lines(path: str) -> List[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    return text.replace("\\\n", " ").splitlines()


def _who_builds(work: str, directory: str, target: str) -> List[Tuple[Optional[str], str]]:
    """[(symbol or None for -y, lhs)] for Makefile lines in directory mentioning target."""
    out = []
    for line in _makefile_lines(os.path.join(work, directory, "Makefile")) + \
            _makefile_lines(os.path.join(work, directory, "Kbuild")):
        m = _OBJ_LINE.match(line)
        if not m:
            continue
        rhs = m.group(4).split()
        if target in rhs:
            out.append((m.group(3), m.group(1)))
    return out


def symbols_for_object(work: str, obj: str, depth: int = 0) -> Tuple[List[str], Optional[str]]:
    """Kconfig symbols whose =y/m builds obj (path relative to the tree), and the module name
    (the obj-$(CONFIG_X) entry) when there is one."""
    if depth > 6:
        return [], None
    directory, base = os.path.split(obj)
    syms: List[str] = []
    module = None
    for sym, lhs in _who_builds(work, directory, base):
        if lhs == "obj":
            if sym:
                syms.append(sym)
                module = module or base[:-2]
        else:
            # composite object lhs.o
            if sym:
                syms.append(sym)
            s2, mod2 = symbols_for_object(work, os.path.join(directory, lhs + ".o"), depth + 1)
            syms += s2
            module = module or mod2
    # parent directories: obj-$(CONFIG_X) += dir/
    d = directory
    while d and d not in ("drivers", "sound", "."):
        parent, leaf = os.path.split(d)
        for sym, lhs in _who_builds(work, parent, leaf + "/"):
            if sym:
                syms.append(sym)
        d = parent
    seen, uniq = set(), []
    for s in syms:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    return uniq, module


@functools.lru_cache(maxsize=4)
def kconfig_index(work: str) -> Dict[str, List[str]]:
    """symbol -> raw 'depends on' expressions (from every Kconfig* file of the tree)."""
    index: Dict[str, List[str]] = {}
    for root, dirs, files in os.walk(work):
        dirs[:] = [d for d in dirs if d not in (".git", "Documentation", "tools", "scripts")]
        for fn in files:
            if not fn.startswith("Kconfig"):
                continue
            cur = None
            for line in _makefile_lines(os.path.join(root, fn)):
                m = _KCONFIG_ENTRY.match(line)
                if m:
                    cur = m.group(1)
                    index.setdefault(cur, [])
                    continue
                s = line.strip()
                if s.startswith(("menu", "endmenu", "if ", "endif", "choice", "endchoice",
                                 "source", "comment")):
                    cur = None
                elif cur and s.startswith("depends on"):
                    index[cur].append(s[len("depends on"):].strip())
    return index


def closure(work: str, syms: Sequence[str], arch_ok=lambda s: True) -> Dict[str, str]:
    """Wanted values: the symbols themselves plus their positive plain dependencies."""
    idx = kconfig_index(work)
    want: Dict[str, str] = {}
    todo = list(syms)
    while todo:
        s = todo.pop(0)
        if s in want or s not in idx:
            continue
        deps = idx[s]
        want[s] = "m" if any(re.fullmatch(r"m", d) for d in deps) else "y"
        for expr in deps:
            if "||" in expr:
                continue          # alternatives: leave to olddefconfig
            for m in _IDENT.finditer(expr.split(" if ")[0]):
                tok = m.group(0)
                name = m.group(1)
                if tok.startswith("!") or name in ("COMPILE_TEST", "EXPERT", "BROKEN"):
                    continue
                if name not in want and name in idx:
                    todo.append(name)
    return want


def header_users(work: str, header: str) -> List[str]:
    """.c files in the header's directory that include it by its quoted name."""
    d, base = os.path.split(header)
    out = []
    try:
        names = sorted(os.listdir(os.path.join(work, d)))
    except OSError:
        return out
    rx = re.compile(r'^\s*#\s*include\s+"' + re.escape(base) + '"', re.M)
    for n in names:
        if n.endswith(".c"):
            with open(os.path.join(work, d, n), encoding="utf-8", errors="replace") as f:
                if rx.search(f.read()):
                    out.append(os.path.join(d, n))
    return out


def plan_unit(work: str, path: str) -> Unit:
    if path.startswith("arch/") and not path.startswith("arch/x86/"):
        return Unit(path, [], {}, reason="other architecture: not compile-tested on x86_64")
    if path.endswith(".c"):
        sources = [path]
    elif path.endswith(".h") and not path.startswith(("include/", "arch/x86/include/")):
        sources = header_users(work, path)
        if not sources:
            return Unit(path, [], {}, reason="header with no .c user in its directory")
    elif path.endswith(".h"):
        return Unit(path, [], {}, reason="global header: covered by the test-kernel build only")
    else:
        return Unit(path, [], {}, reason="not C")
    objs, syms, module, per = [], [], None, {}
    for src in sources:
        obj = src[:-2] + ".o"
        s, mod = symbols_for_object(work, obj)
        if not s and not _who_builds(work, os.path.dirname(obj), os.path.basename(obj)):
            continue
        objs.append(obj)
        per[obj] = s
        syms += [x for x in s if x not in syms]
        module = module or mod
    if not objs:
        return Unit(path, [], {}, reason="no Makefile rule builds it")
    header = not path.endswith(".c")
    return Unit(path, objs, {} if header else closure(work, syms), module=module,
                obj_symbols=per, header=header)


def settle(unit: Unit, dotconfig: Dict[str, str]) -> Unit:
    """After olddefconfig: keep the objects the config really builds; say why if none."""
    if unit.reason:
        return unit
    keep = [o for o in unit.objects
            if all(dotconfig.get(s, "n") in ("y", "m") for s in unit.obj_symbols.get(o, []))]
    if not keep:
        lost = sorted({s for o in unit.objects for s in unit.obj_symbols.get(o, [])
                       if dotconfig.get(s, "n") not in ("y", "m")})
        return dataclasses.replace(unit, objects=[], reason="cannot be enabled on x86_64 "
                                   "tinyconfig: " + ", ".join("CONFIG_" + s for s in lost))
    mod = None
    for o in keep:
        if any(dotconfig.get(s) == "m" for s in unit.obj_symbols.get(o, [])):
            mod = unit.module
    return dataclasses.replace(unit, objects=keep, module=mod)


def new_warnings(before: Sequence[str], after: Sequence[str]) -> List[str]:
    """after minus before, as multisets."""
    left = list(before)
    out = []
    for w in after:
        if w in left:
            left.remove(w)
        else:
            out.append(w)
    return out
