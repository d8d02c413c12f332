"""Carry out a finding's `fix` (docs/fix-strategies.md) with the cocci/fix-*.cocci rules.

Each fix becomes a list of steps (Op): one spatch run of one fix rule on one file, with the
function names passed as virtual identifiers (-D fn=..., -D pred=...) and the site's line in
$AJ_LINE. Only the `condition` strategy instantiates its rule by text (a C expression cannot be
a -D value). Kernel-doc comments are the one thing edited without spatch: a `@param:` line is
added to the comment block of the function, never to C code.
"""

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

from .. import deps
from ..family import SLEEPABLE_WHEN_TRUE
from ..spatch import definer, rule_options, spatch_version
from . import stepmemo

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
COCCI = os.path.join(REPO, "cocci")

RULES = {
    "gfp-constant": "fix-gfp-constant.cocci",
    "keep-branch": "fix-keep-branch.cocci",
    "thread-gfp": "fix-thread-gfp.cocci",
    "thread-flag": "fix-thread-flag.cocci",
    "assert-replace": "fix-assert-replace.cocci",
    "condition": "fix-condition.cocci",
}

# What a true answer of each context predicate means.
ATOMIC_WHEN_TRUE = {"in_atomic", "in_interrupt", "in_irq", "in_hardirq", "in_softirq",
                    "in_serving_softirq", "in_nmi", "irqs_disabled", "in_dbg_master",
                    "oops_in_progress", "in_atomic_preempt_off"}

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Skip(Exception):
    """This fix cannot be made; the message is the one-line reason."""


@dataclass
class Op:
    file: str
    rule: str                      # cocci file name, or "kernel-doc"
    defines: dict                  # virtual identifier -> value
    flags: tuple = ()              # extra virtual rule names to enable
    line: int = 0                  # 0: not anchored to a line
    required: bool = True          # must change the file
    what: str = ""                 # for the skip reason
    subst: str = None              # fix-condition: text for AJ_CONDITION
    doc: tuple = None              # kernel-doc: (function, param, description)


@dataclass
class Plan:
    finding: dict
    ops: list = field(default_factory=list)
    notes: list = field(default_factory=list)   # sentences for the commit message

    @property
    def files(self):
        return sorted({op.file for op in self.ops})


def _ident(value, what):
    if not isinstance(value, str) or not IDENT.match(value):
        raise Skip(f"{what} {value!r} is not a C identifier")
    return value


def _split_top(expr, sep):
    """Split expr at top-level `sep` (|| or &&), outside parentheses."""
    parts, depth, cur, i = [], 0, "", 0
    while i < len(expr):
        ch = expr[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if depth == 0 and expr.startswith(sep, i):
            parts.append(cur.strip())
            cur = ""
            i += len(sep)
            continue
        cur += ch
        i += 1
    parts.append(cur.strip())
    return parts


def _strip(expr):
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1]):
        expr = expr[1:-1].strip()
    return expr


def _balanced(s):
    depth = 0
    for ch in s:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _term_atomic(term, finding):
    """True if the term, when true, says 'atomic'; False if it says 'may sleep'."""
    term = _strip(term)
    neg = False
    while term.startswith("!"):
        neg = not neg
        term = _strip(term[1:])
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(\(\s*\))?$", term)
    if not m:
        raise Skip(f"condition term {term!r} is not a context predicate")
    name = m.group(1)
    if name in ATOMIC_WHEN_TRUE:
        atomic = True
    elif name in SLEEPABLE_WHEN_TRUE:
        atomic = False
    elif name == finding.get("called"):
        atomic = (finding.get("form_detail") or {}).get("true_means", "atomic") == "atomic"
    else:
        raise Skip(f"condition term {term!r} is not a context predicate")
    return atomic != neg


def atomic_when_true(finding):
    """Whether the whole condition at the site is true in atomic context."""
    expr = _strip(finding["expression"])
    ors = _split_top(expr, "||")
    if len(ors) > 1:
        if all(_term_atomic(t, finding) for t in ors):
            return True
        raise Skip(f"cannot tell which branch of `{expr}` is the atomic one")
    ands = _split_top(expr, "&&")
    if len(ands) > 1:
        if not any(_term_atomic(t, finding) for t in ands):
            return False
        raise Skip(f"cannot tell which branch of `{expr}` is the atomic one")
    return _term_atomic(expr, finding)


def _grep_files(root, name, dirs, suffix):
    """Files under dirs (relative to root) that mention `name(` as a word: candidates only."""
    out = set()
    pat = re.compile(r"\b" + re.escape(name) + r"\s*\(")
    for d in dirs:
        base = os.path.join(root, d)
        if os.path.isfile(base):
            cands = [d]
        else:
            cands = []
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(x for x in dirnames if not x.startswith("."))
                for f in filenames:
                    if f.endswith(suffix):
                        cands.append(os.path.relpath(os.path.join(dirpath, f), root))
        for rel in cands:
            try:
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                    if pat.search(fh.read()):
                        out.add(rel)
            except OSError:
                continue
    return out


_IF_ELSE = re.compile(r"^\s*if\s*\((?P<cond>.*)\)\s*(?P<then>[^;{}]*;)\s*else\s*(?P<else>[^;{}]*;)", re.S)


def _short_msleep(root, rel, line, keep_flag):
    """N when the kept branch of the `if (...) a; else b;` at rel:line is `msleep(N);` with a
    literal N below 20: checkpatch flags such a moved line ("msleep < 20ms can sleep for up
    to 20ms", Documentation/timers/timers-howto.rst), so it becomes usleep_range()."""
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            lines = fh.readlines()
    except OSError:
        return None
    m = _IF_ELSE.match("".join(lines[line - 1:line + 5]))
    if not m:
        return None
    kept = m.group("then" if keep_flag == "keep_then" else "else")
    n = re.fullmatch(r"\s*msleep\s*\(\s*(\d+)\s*\)\s*;", kept)
    return int(n.group(1)) if n and 0 < int(n.group(1)) < 20 else None


def plan(finding, root):
    """The steps that carry out finding['fix'] in the tree at root; raises Skip."""
    fix = finding.get("fix") or {}
    strategy = fix.get("strategy")
    params = fix.get("params") or {}
    if strategy not in RULES:
        raise Skip(f"unknown fix strategy {strategy!r}")
    rule = RULES[strategy]
    f = params.get("file") or finding["file"]
    fn = _ident(params.get("function") or finding.get("function"), "function")
    pred = _ident(finding["called"], "predicate")
    line = int(params.get("line") or finding["line"])
    where = f"{f}:{line} {fn}()"
    p = Plan(finding)
    base = {"fn": fn, "pred": pred}
    if strategy == "gfp-constant":
        p.ops.append(Op(f, rule, dict(base, gfp=_ident(params.get("gfp"), "gfp")), line=line, what=where))
    elif strategy == "keep-branch":
        keep = params.get("keep")
        if keep not in ("sleep", "atomic"):
            raise Skip(f"keep-branch: keep must be sleep or atomic, not {keep!r}")
        flags = ["keep_then" if (keep == "atomic") == atomic_when_true(finding) else "keep_else"]
        if params.get("might_sleep"):
            if keep != "sleep":
                raise Skip("keep-branch: might_sleep() asked for while keeping the atomic branch")
            flags.append("might")
        defines = dict(base)
        ms = _short_msleep(root, f, line, flags[0]) if keep == "sleep" and "might" in flags else None
        if ms:
            flags.append("usleep")
            defines.update(lo=str(ms * 1000), hi=str(ms * 2000))
            p.notes.append(f"The kept msleep({ms}) becomes usleep_range({ms * 1000}, {ms * 2000}): msleep() "
                           "of less than 20 ms can sleep for up to 20 ms "
                           "(Documentation/timers/timers-howto.rst).")
        p.ops.append(Op(f, rule, defines, tuple(flags), line=line, what=where))
    elif strategy == "assert-replace":
        with_ = (params.get("with") or "").strip()
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*\)$", with_)
        if not m:
            raise Skip(f"assert-replace: {with_!r} takes an argument; only argument-less assertions are supported")
        p.ops.append(Op(f, rule, dict(base, **{"with": m.group(1)}), line=line, what=where))
    elif strategy == "condition":
        cond = (params.get("condition") or "").strip()
        if not cond or not _balanced(cond) or any(c in cond for c in ";{}\n@"):
            raise Skip(f"condition: {cond!r} is not a single C expression")
        p.ops.append(Op(f, rule, dict(base), line=line, what=where, subst=cond))
    else:  # thread-gfp / thread-flag
        param = _ident(params.get("param") or ("gfp" if strategy == "thread-gfp" else "may_sleep"), "param")
        site = dict(base, param=param)
        flags = ["site"]
        if strategy == "thread-flag":
            means_atomic = params.get("param_means") == "atomic"
            # may_sleep: the test is true when may_sleep is false (atomic-when-true test) ...
            if atomic_when_true(finding) == means_atomic:
                flags.append("sleep_when_true")  # ... the test becomes `param`
        p.ops.append(Op(f, rule, site, tuple(flags), line=line, what=where))
        callers = params.get("callers") or []
        if not params.get("reuse"):
            if not callers:
                raise Skip(f"{strategy}: no callers given for {fn}()")
            ptype = "gfp_t" if strategy == "thread-gfp" else "bool"
            p.ops.append(Op(f, rule, dict(fn=fn, param=param), ("def",), what=f"definition of {fn}()"))
            desc = (params.get("doc") or
                    ("GFP flags for allocations, chosen by the caller for its context"
                     if strategy == "thread-gfp" else
                     ("true if the caller runs in atomic context" if params.get("param_means") == "atomic"
                      else "true if the caller may sleep")))
            p.ops.append(Op(f, "kernel-doc", {}, required=False, doc=(fn, param, desc)))
            d = os.path.dirname(f)
            static = _is_static(root, f, fn)
            dirs = [d] if static else sorted({d, "include"} | {os.path.dirname(c["file"]) for c in callers})
            decls = _grep_files(root, fn, dirs, ".h") | ({f} | {c["file"] for c in callers})
            if static:
                decls = {f}
            for h in sorted(decls):
                p.ops.append(Op(h, rule, dict(fn=fn, param=param), ("proto",), required=False,
                                what=f"prototype of {fn}() in {h}"))
                if h != f and h.endswith(".h"):
                    p.ops.append(Op(h, "kernel-doc", {}, required=False, doc=(fn, param, desc)))
            del ptype
        for c in callers:
            if "pass" in c:
                value = _ident(c["pass"], "caller pass")
            elif strategy == "thread-gfp":
                value = _ident(c.get("gfp"), "caller gfp")
            else:
                v = c.get("value")
                if not isinstance(v, bool):
                    raise Skip(f"thread-flag: caller {c.get('function')}() has no boolean value")
                value = "true" if v else "false"
            cf = _ident(c.get("function"), "caller")
            p.ops.append(Op(c["file"], rule, {"fn": fn, "caller": cf, "value": value}, ("call",),
                            line=int(c["line"]), what=f"{c['file']}:{c['line']} call in {cf}()"))
    return p


def _is_static(root, rel, fn):
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return False
    m = re.search(r"^([^\n;{}()]*?)\b" + re.escape(fn) + r"\s*\([^;{]*\)\s*\{", text, re.M)
    return bool(m and re.search(r"\bstatic\b", m.group(1)))


def order(ops):
    """Line-anchored steps from the bottom of each file up (so that the lines of the steps still
    to come do not move), then the unanchored ones (definitions, prototypes, kernel-doc)."""
    return sorted(ops, key=lambda o: (o.file, 0 if o.line else 1, -o.line,
                                      ["def", "proto"].index(o.flags[0]) if o.flags and o.flags[0] in ("def", "proto") else 2))


class Workspace:
    """A scratch copy of the files a series touches; the tree itself is never written."""

    def __init__(self, root):
        self.root = root
        self.dir = tempfile.mkdtemp(prefix="aj-patches-")
        self.use_macros(None)

    def use_macros(self, macro_file):
        """The scan's parse recovery (macrofile.py): a fix must parse what the proof parsed."""
        self.macro_file = macro_file
        self._defines_macro = definer(macro_file, self.root)

    def path(self, rel):
        dst = os.path.join(self.dir, "work", rel)
        if not os.path.exists(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(os.path.join(self.root, rel), dst)
        return dst

    def read(self, rel):
        with open(self.path(rel), encoding="utf-8", errors="surrogateescape") as fh:
            return fh.read()

    def write(self, rel, text):
        with open(self.path(rel), "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(text)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def _rule_file(ws, op):
    path = os.path.join(COCCI, op.rule)
    if op.subst is None:
        return path
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    inst = os.path.join(ws.dir, "fix-condition-instance.cocci")
    with open(inst, "w", encoding="utf-8") as fh:
        fh.write(re.sub(r"\bAJ_CONDITION\b", lambda _m: op.subst, text))
    return inst


def run_op(ws, op):
    """Apply one step to the work copy; raise Skip if a required step changed nothing."""
    before = ws.read(op.file)
    if op.rule == "kernel-doc":
        after = add_kernel_doc_param(before, *op.doc)
    else:
        rule = _rule_file(ws, op)
        out = os.path.join(ws.dir, "out.c")
        argv = [*deps.spatch_command(), "--sp-file", rule, *rule_options(os.path.join(COCCI, op.rule)),
                "-D", "patch", "--very-quiet", "-o", out]
        for k, v in sorted(op.defines.items()):
            argv += ["-D", f"{k}={v}"]
        for fl in op.flags:
            argv += ["-D", fl]
        if ws.macro_file and not ws._defines_macro(op.file):
            argv += ["--macro-file", ws.macro_file]
        argv.append(ws.path(op.file))
        with open(rule, encoding="utf-8") as fh:
            rule_text = fh.read()
        macros = b""
        if "--macro-file" in argv:
            with open(ws.macro_file, "rb") as fh:
                macros = fh.read()
        # every argument but the scratch paths, which differ from run to run
        k = stepmemo.key(spatch_version(), rule_text, macros, str(op.line), op.file, before,
                         *(a for a in argv[1:] if a not in (rule, out, ws.macro_file, ws.path(op.file))))
        after = stepmemo.load(k)
        if after is None:
            env = deps.spatch_env(AJ_LINE=str(op.line))
            if os.path.exists(out):
                os.unlink(out)
            res = subprocess.run(argv, capture_output=True, text=True, env=env, check=False, timeout=300)
            if res.returncode != 0:
                last = (res.stderr.strip().splitlines() or ["(no message)"])[-1][:160]
                raise Skip(f"{op.rule} failed on {op.what}: {last}")
            after = before
            if os.path.exists(out):
                with open(out, encoding="utf-8", errors="surrogateescape") as fh:
                    after = fh.read()
            stepmemo.save(k, after)
    if after == before:
        if op.required:
            raise Skip(f"{op.rule} no longer applies at {op.what} (code changed since the scan?)")
        return False
    ws.write(op.file, after)
    return True


def add_kernel_doc_param(text, fn, param, desc):
    """Add ` * @param: desc` after the last @-line of fn's kernel-doc comment, if it has one."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not re.match(r"^/\*\*\s*$", line):
            continue
        j = i + 1
        while j < len(lines) and "*/" not in lines[j]:
            j += 1
        if j + 1 >= len(lines) or not re.match(r"^\s*\*\s*(struct\s+|)?" + re.escape(fn) + r"\b", lines[i + 1].lstrip(" *") and lines[i + 1]):
            if not (i + 1 < len(lines) and re.match(r"^\s\*\s+" + re.escape(fn) + r"(\(\))?\s+-", lines[i + 1])):
                continue
        if any(re.match(r"^\s\*\s+@" + re.escape(param) + r":", l) for l in lines[i:j]):
            return text
        last = None
        k = i + 1
        while k < j:
            if re.match(r"^\s\*\s+@\w+:", lines[k]):
                last = k
                while k + 1 < j and re.match(r"^\s\*\s+\S", lines[k + 1]) and not re.match(r"^\s\*\s+@\w+:", lines[k + 1]) \
                        and not re.match(r"^\s\*\s*$", lines[k + 1]) and not re.match(r"^\s\*\s+\w[\w ]*:", lines[k + 1]):
                    k += 1
                    last = k
            k += 1
        if last is None:
            return text
        lines.insert(last + 1, f" * @{param}: {desc}")
        return "\n".join(lines)
    return text
