"""Detection: every use of the predicates, directly or through wrappers, with its form.

Wrapper closure: grep the tree for the names known so far, run the detection rule on the
files that mention them (headers anywhere, C files in scope), turn each macro or function
whose value *is* the predicate into a new name, and repeat until no new name appears.
"""

import os
import re
from dataclasses import dataclass, field

from .. import spatch
from .. import ctext
from . import forms
from ..family import FAMILY, KNOWN_WRAPPERS, SLEEPABLE_WHEN_TRUE, is_definition

RULE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cocci", "in_atomic.cocci")
MAX_ROUNDS = 8
TRACE_EVENT_REASON = "in a trace event definition"
_EVENT = re.compile(r"^\s*(TRACE_EVENT\w*|DECLARE_EVENT_CLASS|DEFINE_EVENT\w*)\s*\(", re.M)


def trace_event_at(text, line):
    """The TRACE_EVENT-family invocation around `line` (1-based) of `text`, or None: the
    tracepoint headers spatch cannot parse; what is computed there goes into the trace."""
    off = 0
    for _ in range(line - 1):
        off = text.find("\n", off) + 1
    found = None
    for m in _EVENT.finditer(text, 0, off + 1):
        found = m
    if found is None:
        return None
    end = ctext.matching(text, found.end() - 1, "(", ")")
    return found.group(1) if found.start() <= off <= end else None


@dataclass
class Wrapper:
    name: str
    kind: str              # "macro" or "inline" / "function"
    file: str
    line: int
    via: list              # [name, ..., base predicate]
    asserts: bool = False
    atomic_when_true: bool = True

    def to_json(self):
        return {"name": self.name, "kind": self.kind, "file": self.file, "line": self.line,
                "via": self.via, "asserts": self.asserts,
                "true_means": "atomic" if self.atomic_when_true else "may-sleep"}


@dataclass
class Use:
    file: str
    line: int
    col: int
    colend: int
    called: str
    function: str = None
    macro: str = None
    constructs: list = field(default_factory=list)
    static: bool = False
    inline: bool = False


@dataclass
class Detection:
    uses: list
    wrappers: dict
    assert_macros: dict    # macro name -> Use (the one finding at its #define)
    not_analysed: list
    analysed_files: list
    spatch_runs: int
    read_lines: object     # relpath -> lines, the files detection already read


def in_scope(rel, scope):
    return any(s == "." or rel == s.rstrip("/") or rel.startswith(s.rstrip("/") + "/") for s in scope)


class _Files:
    """Lines of tree files, read once."""

    def __init__(self, root):
        self.root = root
        self.cache = {}

    def lines(self, rel):
        if rel not in self.cache:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as fh:
                self.cache[rel] = fh.readlines()
        return self.cache[rel]


def _group(records):
    """Records of one file -> {(line, col): Use-ish dict with its constructs}."""
    uses = {}
    for r in records:
        if r["kind"] == "use":
            uses[(r["line"], r["col"])] = {"use": r, "constructs": [], "static": False, "inline": False}
    for r in records:
        if r["kind"] == "use":
            continue
        u = uses.get((r["line"], r["col"]))
        if u is None:
            continue
        if r["kind"] == "inline":
            u["inline"] = u["static"] = True
        elif r["kind"] == "static":
            u["static"] = True
        elif r["kind"].startswith("var-") and r.get("in_element") != r.get("element"):
            continue      # the same variable name in another function
        else:
            u["constructs"].append(r)
    return uses


def atomic_when_true(name, wrappers):
    if name in wrappers:
        return wrappers[name].atomic_when_true
    return name not in SLEEPABLE_WHEN_TRUE


def _wrapper_value(use, constructs, called_awt):
    """If the enclosing function's value is the predicate's answer: True/False for what a
    true value means (atomic or not); None when it is not a wrapper."""
    if any(c["kind"] == "call-arg" and c.get("callee") not in forms.TRANSPARENT_CALLS for c in constructs):
        return None       # the answer is passed to a call: the value returned is that call's
    for c in constructs:
        if c["kind"] == "return":
            if not forms.pure_condition(c.get("cond"), use["use"]["called"]):
                return None
            if any(k["kind"] == "ternary" for k in constructs):
                return called_awt     # e.g. gfp_any(): a flag chosen by the answer alone
            return called_awt != forms.negated(c.get("cond"), use["use"]["called"])
    if use["inline"]:
        for c in constructs:
            if c["kind"] == "if" and c.get("other") is None and forms._branch_facts(c.get("then"))["only_return"]:
                cond_awt = called_awt != forms.negated(c.get("cond"), use["use"]["called"])
                value = c["then"].replace("{", "").replace("}", "").split()[1:2]
                if value and value[0] in ("false", "0"):
                    return not cond_awt
                if value and value[0] in ("true", "1"):
                    return cond_awt
    return None


def _macro_awt(body, called, called_awt):
    return called_awt != forms.negated(forms.tokens(body), called)


def detect(tree, scope, base_predicates, prefilter, fingerprints, store, jobs):
    files = _Files(tree.root)
    names = {p: list(KNOWN_WRAPPERS.get(p, [p])) for p in sorted(base_predicates)}   # name -> via chain
    wrappers, assert_macros = {}, {}
    all_uses, not_analysed = {}, []
    runs = 0
    analysed = []
    for _round in range(MAX_ROUNDS):
        cands = prefilter.files_with(sorted(names))
        targets = [f for f in cands if f.endswith(".h") or in_scope(f, scope)]
        per_file = {rel: prefilter.names_in(rel, names) for rel in targets}
        res = spatch.run(RULE, tree.root, targets, per_file, fingerprints, store, jobs, label="scan")
        runs += res.ran
        analysed = targets
        new = {}
        round_uses = {}
        for rel in targets:
            grouped = _group(res.records.get(rel, []))
            for (line, col), u in sorted(grouped.items()):
                rec = u["use"]
                called = rec["called"]
                if called not in names:
                    continue
                use = Use(file=rel, line=line, col=col, colend=rec["colend"], called=called,
                          constructs=u["constructs"], static=u["static"], inline=u["inline"])
                elem = rec.get("element")
                if elem == "something_else" or not elem:
                    m = ctext.macro_at(files.lines(rel), line)
                    if m:
                        use.macro = m[0]
                else:
                    use.function = elem
                owner = use.macro or use.function
                if is_definition(owner, called):
                    continue          # the predicate's own definition, not a use
                round_uses[(rel, line, col)] = use
                if use.macro:
                    body = ctext.macro_at(files.lines(rel), line)[2]
                    asserting = any(c["kind"] == "call-arg" and forms.ASSERT_CALLS.match(c.get("callee") or "")
                                    for c in use.constructs)
                    if asserting:
                        assert_macros.setdefault(use.macro, use)
                    elif ctext.is_expression_macro(body) and forms.pure_condition(forms.tokens(body), called) \
                            and use.macro not in names and use.macro not in FAMILY:
                        new.setdefault(use.macro, Wrapper(
                            use.macro, "macro", rel, _define_line(files.lines(rel), line), [use.macro] + names[called],
                            atomic_when_true=_macro_awt(body, called, atomic_when_true(called, wrappers))))
                elif use.function and use.function not in names and use.function not in FAMILY:
                    awt = _wrapper_value(u, use.constructs, atomic_when_true(called, wrappers))
                    if awt is not None:
                        new.setdefault(use.function, Wrapper(use.function, "inline" if use.inline else "function",
                                                             rel, line, [use.function] + names[called],
                                                             atomic_when_true=awt))
        all_uses = round_uses
        if not new:
            break
        for name, w in sorted(new.items()):
            wrappers[name] = w
            names[name] = w.via
    for name, use in assert_macros.items():
        wrappers.setdefault(name, Wrapper(name, "macro", use.file, _define_line(files.lines(use.file), use.line),
                                          [name] + names[use.called], asserts=True))
    # Cross-check: a textual call spatch did not report means code spatch could not parse.
    for rel in analysed:
        if rel in res.failed:
            not_analysed.append({"file": rel, "line": None, "reason": res.failed[rel]})
        try:
            text = "".join(files.lines(rel))
        except OSError as exc:
            not_analysed.append({"file": rel, "line": None, "reason": f"unreadable: {exc.strerror}"})
            continue
        seen = {(u.line, u.called) for (f, _l, _c), u in all_uses.items() if f == rel}
        blanked = ctext.blank(text)
        for line, _col, name in ctext.textual_calls(blanked, list(names)):
            if (line, name) in seen:
                continue
            m = ctext.macro_at(files.lines(rel), line)
            if is_definition(m[0] if m else None, name):
                continue
            if m and m[0] in assert_macros:
                continue
            event = trace_event_at(blanked, line)
            if event:
                not_analysed.append({"file": rel, "line": line,
                                     "reason": f"{TRACE_EVENT_REASON} {event}(): {name}() is recorded into the "
                                               "trace, it decides nothing"})
                continue
            not_analysed.append({"file": rel, "line": line,
                                 "reason": f"textual call of {name}() that spatch did not match (unparsed code?)"})
    for rel in sorted(res.failed):
        if rel not in analysed:
            not_analysed.append({"file": rel, "line": None, "reason": res.failed[rel]})
    uses = [all_uses[k] for k in sorted(all_uses)]
    return Detection(uses=uses, wrappers=wrappers, assert_macros=assert_macros,
                     not_analysed=sorted(not_analysed, key=lambda d: (d["file"], d["line"] or 0)),
                     analysed_files=analysed, spatch_runs=runs, read_lines=files.lines)


def _define_line(lines, line_no):
    """First physical line of the #define spanning line_no."""
    for first, last, _text in ctext.logical_lines(lines):
        if first <= line_no <= last:
            return first
    return line_no
