"""Parse recovery: the tree's own attribute-like and loop-header macros, as a Coccinelle
macro file.

Vendor drivers put their own decorators before function heads (`RTW_ATTR static int f(...)`,
`#define RTW_ATTR __attribute__((section(".rtw")))`). spatch does not expand a macro whose
body is an attribute, so it cannot parse such a function: its calls are lost and its callers
are unknown. Told that these names expand to nothing (`--macro-file`), it parses them. Only
macros whose body is nothing but attributes and qualifiers are listed, so no code changes
meaning; names Coccinelle's own standard.h knows are left to it. The file depends on the
whole tree only (never on SCOPE), and its digest is part of every spatch cache key.

A macro that expands to a loop header takes the statement after it as its body:

    #define with_intel_runtime_pm(rpm, wf) \\
            for ((wf) = intel_runtime_pm_get(rpm); (wf); \\
                 intel_runtime_pm_put((rpm), (wf)), (wf) = 0)

    with_intel_runtime_pm(&i915->runtime_pm, wakeref)
            ret = guc_action_policies_update(guc, policies);

spatch guesses such iterators from names like `for_each`; other names make it give up on
the whole function (6.1's i915 has nine). Listed as `YACFE_ITERATOR`, Coccinelle's own
hint, they parse. Only a body that is a `for (...)` header, optionally followed by the
`if (...) {} else` of the kernel's filtered iterators, counts, and only where every
definition of the name in the tree is one."""

import hashlib
import os
import re
import subprocess

from . import ctext, deps
from .atomicio import write_text

STANDARD_H = "/usr/lib/coccinelle/standard.h"
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?[ \t]+(.*?)\s*$")
# Attributes and the function-head keywords only: a body with any other word (a type, as in
# `#define __aligned_u64 __u64 __attribute__((aligned(8)))`) is no decorator.
_ATTRIBUTE = r"__attribute__\s*\(\(.*?\)\)"
_ATTR_TOKEN = r"(?:%s|inline|noinline|__inline|__inline__|__always_inline|static|notrace)" % _ATTRIBUTE
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


_FOR_HEAD = re.compile(r"for\s*\(")
_FOR_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\([^)]*\)[ \t]*(?:\\\r?\n[ \t]*)?for\s*\(", re.M)
_ITER_TAIL = re.compile(r"\s*(?:if\s*\(.*\)\s*(?:\{\s*\}|;)?\s*else|if\s*\(.*\))?\s*", re.S)


# Calls in a loop header that may open a region around the statement after it
# (`for (spin_lock(l), d = 1; d; spin_unlock(l), d = 0)`): spatch does not expand the
# macro, so a call in its body would look unlocked. Such a macro stays unparsed (unknown).
_REGION_CALL = re.compile(r"lock|irq|_bh|bh_|preempt|rcu|guard|class|critical|acquire|atomic|"
                          r"get_cpu|put_cpu|pagefault|disable|enable|save|restore|seq", re.I)
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def is_loop_header(body):
    """Is a macro body a loop header whose body is the statement written after the macro,
    and which calls nothing that may open a lock, irq, bh, preempt or RCU region?"""
    body = body.strip()
    m = _FOR_HEAD.match(body)
    if not m:
        return False
    close = ctext.matching(body, m.end() - 1, "(", ")")
    if close >= len(body) or _ITER_TAIL.fullmatch(body[close + 1:]) is None:
        return False
    return not any(_REGION_CALL.search(name) for name in _CALLED.findall(body)
                   if name not in ("for", "if", "sizeof", "typeof", "__typeof__"))


def iterator_macros(defines, known=frozenset()):
    """{name: params} for the function-like macros among `defines` ([(name, params or None,
    body)], every definition the tree has of each name) whose every definition is a loop
    header, and whose name Coccinelle does not know."""
    good, bad = {}, set()
    for name, params, body in defines:
        if params is not None and is_loop_header(body):
            good.setdefault(name, f"({params})")
        else:
            bad.add(name)
    return {n: p for n, p in good.items() if n not in bad and n not in known}


def _grep(root, pattern, dirs, files=False):
    """The lines under dirs matching pattern (sorted, unique), or with files=True the files."""
    rg = deps.ripgrep()
    if rg:
        argv = [rg, *(["-l"] if files else ["--no-filename", "--no-line-number"]), "-g", "*.[ch]",
                "-e", pattern, *dirs]
    else:
        # POSIX ERE: no inline flags, and no escapes inside a bracket expression
        pattern = pattern.replace("(?-u)", "").replace("[ \\t]", "[[:blank:]]")
        argv = ["grep", "-rlE" if files else "-rhE", "--include=*.c", "--include=*.h", pattern, *dirs]
    res = subprocess.run(argv, cwd=root, capture_output=True, text=True, errors="replace", check=False)
    return sorted(set(res.stdout.splitlines()))


def _dirs(tree):
    if tree.kind != "kernel":
        return ["."]
    return [d for d in KERNEL_DIRS if os.path.isdir(os.path.join(tree.root, d))] or ["."]


def _file_defines(root, rel, names=None):
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            lines = fh.readlines()
    except OSError:
        return []
    return [d for _f, _l, d in ctext.defines(lines) if names is None or d[0] in names]


def _iterators(root, dirs, known):
    """The loop-header macros of the tree: the files where a function-like #define's body
    starts with `for` (on its line or the next), then every definition of those names."""
    # (?-u): ASCII classes, several times faster over the whole tree. A multi-line pattern
    # is ten times slower in rg than reading its 5,000 files here.
    files = _grep(root, r"(?-u)^[ \t]*#[ \t]*define[ \t]+\w+\([^)]*\)[ \t]*(for\b|\\[ \t]*$)", dirs, files=True)
    cands = set()
    for rel in files:
        try:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        cands.update(m.group(1) for m in _FOR_DEFINE.finditer(text))
    cands -= known
    if not cands:
        return {}
    every = []
    alt = "|".join(sorted(cands))
    for rel in _grep(root, r"^\s*#\s*define\s+(%s)\b" % alt, dirs, files=True):
        every.extend(_file_defines(root, rel, cands))
    return iterator_macros(every, known)


def is_name_wrapper(params, body):
    """Is a one-parameter macro's body that parameter, after attributes only? Broadcom wraps
    the names of its hot functions, `void BCMFASTPATH(dhd_start_xmit)(struct sk_buff *skb,
    ...)`, in `#define BCMFASTPATH(_fn) __attribute__((__section__(".text_fastpath." #_fn))) _fn`;
    spatch parses such a head once told that the macro is its argument."""
    if params is None or not re.fullmatch(r"\s*[A-Za-z_]\w*\s*", params):
        return False
    p = params.strip()
    body = " ".join(body.replace("\\\n", " ").split())
    if not re.search(r"(?<![\w#])%s$" % re.escape(p), body):
        return False
    head = body[:-len(p)].strip()
    # attributes only: `#define W(fn) static fn` would drop `static` from the head
    return not head or re.fullmatch(r"(?:%s\s*)+" % _ATTRIBUTE, head, re.S) is not None


_WRAP_LINE = re.compile(r"^\s*#\s*define\s+(\w+)\((\s*\w+\s*)\)(.*)$")


def _name_wrappers(root, dirs, known, attr_lines):
    """{name: "(param)"} for the macros whose every definition in the tree is a name wrapper
    (is_name_wrapper), one at least with an attribute: found among the one-line definitions
    with an attribute (attr_lines), then each of their definitions read whole (a continued
    line may hold another body)."""
    cands = set()
    for line in attr_lines:
        m = _WRAP_LINE.match(line)
        if m and m.group(1) not in known and is_name_wrapper(m.group(2), m.group(3)):
            cands.add(m.group(1))
    if not cands:
        return {}
    good, bad, decorates = {}, set(), set()
    alt = "|".join(sorted(cands))
    for rel in _grep(root, r"^\s*#\s*define\s+(%s)\b" % alt, dirs, files=True):
        for name, params, body in _file_defines(root, rel, cands):
            if is_name_wrapper(params, body):
                good.setdefault(name, f"({params.strip()})")
                if "__attribute__" in body:
                    decorates.add(name)
            else:
                bad.add(name)
    # `#define S8_C(x) x` is an identity, which spatch parses as a call: only a decorator
    # (some definition adds an attribute) is one that a function head may be wrapped in.
    return {n: p for n, p in good.items() if n not in bad and n in decorates}


def build(tree, store_dir):
    """The macro file for `tree` (a path in the cache), or None when the tree has no such
    macro. Deterministic: sorted names, one `#define` a line."""
    dirs = _dirs(tree)
    known = _known()
    attr_lines = _grep(tree.root, r"^\s*#\s*define\s+\w+.*__attribute__", dirs)
    macros = attribute_macros(attr_lines, known)
    if macros:
        # A name defined anywhere else with another body is not a decorator everywhere.
        alt = "|".join(sorted(macros))
        others = _grep(tree.root, r"^\s*#\s*define\s+(%s)\b" % alt, dirs)
        for name in {m.group(1) for m in map(_DEFINE_ANY.match, others) if m and not _is_attr_define(m)}:
            macros.pop(name, None)
    iters = _iterators(tree.root, dirs, known)
    wraps = _name_wrappers(tree.root, dirs, known, attr_lines)
    if not macros and not iters and not wraps:
        return None
    text = "// atomic-janitor: attribute-like macros of this tree, expanded to nothing\n" + "".join(
        f"#define {name}{params}\n" for name, params in sorted(macros.items()))
    if iters:
        text += "// loop-header macros of this tree: iterators over the statement after them\n" + "".join(
            f"#define {name}{params} YACFE_ITERATOR\n" for name, params in sorted(iters.items()))
    if wraps:
        text += "// name-wrapping macros of this tree: attributes dropped, the name kept\n" + "".join(
            f"#define {name}{params} {params[1:-1]}\n" for name, params in sorted(wraps.items()))
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = os.path.join(store_dir, f"macros-{digest}.h")
    if not os.path.exists(path):
        write_text(path, text)
    return path
