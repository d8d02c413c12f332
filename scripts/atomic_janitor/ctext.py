"""Reading C source text: comments/strings blanked, #define and #if context, snippets.

Only ever reads; the rewriting of C is Coccinelle's job.
"""

import bisect
import collections
import re

_TOKEN = re.compile(r"""
    (?P<lc>//[^\n]*)
  | (?P<bc>/\*.*?(\*/|\Z))
  | (?P<str>"(\\.|[^"\\\n])*"?)
  | (?P<chr>'(\\.|[^'\\\n])*'?)
""", re.S | re.X)


def blank(text):
    """Same length and line structure as `text`, with comments and string/char literals blanked."""
    def repl(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return _TOKEN.sub(repl, text)


_MEMO = collections.OrderedDict()
# Only small tables are kept (a file's #define and #if lines, not its joined text): the call
# graph asks about thousands of files in turn, and a smaller memo was recomputing them.
_MEMO_SIZE = 32768


def _memo(kind, lines, compute):
    """Per-file tables, kept for the last files asked about: the same file's #define and
    #if tables are wanted once per mention. Keyed by the list object, which callers read
    once and never change."""
    key = (kind, id(lines))
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is lines and hit[1] == len(lines):
        _MEMO.move_to_end(key)
        return hit[2]
    value = compute(lines)
    _MEMO[key] = (lines, len(lines), value)
    if len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return value


def _logical(lines):
    out = []
    i = 0
    while i < len(lines):
        start = i
        text = lines[i].rstrip("\n")
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].rstrip("\n")
        out.append((start + 1, i + 1, text))
        i += 1
    return out


def logical_lines(lines):
    """[(first_line_no, last_line_no, joined_text)] joining backslash continuations (1-based)."""
    return _memo("logical", lines, _logical)


_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)$")


def _defines(lines):
    out = []
    for first, last, text in _logical(lines):
        if "define" in text:
            m = _DEFINE.match(text)
            if m:
                out.append((first, last, (m.group(1), m.group(3), m.group(4).strip())))
    return out


def macro_at(lines, line_no):
    """(name, params or None, body) of the #define that spans line_no, else None."""
    defs = _memo("defines", lines, _defines)
    i = bisect.bisect_right(defs, (line_no, float("inf"))) - 1
    if i >= 0 and defs[i][0] <= line_no <= defs[i][1]:
        return defs[i][2]
    return None


def matching(text, i, opener="{", closer="}"):
    """Index of the `closer` matching the first `opener` at or after i; len(text) if none."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == opener:
            depth += 1
        elif text[j] == closer:
            depth -= 1
            if depth == 0:
                return j
    return len(text)


def is_expression_macro(body):
    """A macro whose body is an expression (a value), not a statement."""
    b = body.strip()
    if not b or ";" in b or "({" in b or b.startswith(("do", "{", "if", "for", "while", "switch")):
        return False
    return True


_COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")


def _directives(lines):
    """[(first_line_no, keyword, argument, is_include_guard_candidate)] of the #if family."""
    logical = _logical(lines)
    out = []
    for idx, (first, _last, text) in enumerate(logical):
        if "#" not in text:
            continue
        m = _COND.match(blank(text))
        if not m:
            continue
        kw, arg = m.group(1), " ".join(m.group(2).split())
        guard = False
        if kw == "ifndef":
            nxt = logical[idx + 1][2] if idx + 1 < len(logical) else ""
            guard = bool(re.match(rf"^\s*#\s*define\s+{re.escape(arg)}\b", nxt))
        out.append((first, kw, arg, guard))
    return out


def config_at(lines, line_no):
    """The #if conditions in force at line_no, outermost first; include guards left out."""
    stack = []
    for first, kw, arg, guard in _memo("directives", lines, _directives):
        if first >= line_no:
            break
        if kw == "ifdef":
            stack.append(f"defined({arg})")
        elif kw == "ifndef":
            stack.append(None if guard and not stack else f"!defined({arg})")
        elif kw == "if":
            stack.append(arg)
        elif kw in ("elif", "else") and stack:
            prev = stack.pop()
            neg = f"!({prev})" if prev else None
            if kw == "elif":
                stack.append(f"{neg} && ({arg})" if neg else arg)
            else:
                stack.append(neg)
        elif kw == "endif" and stack:
            stack.pop()
    return [c for c in stack if c]


def snippet(lines, line_no, before=3, after=3):
    start = max(1, line_no - before)
    end = min(len(lines), line_no + after)
    return {"start": start, "lines": [lines[i - 1].rstrip("\n").expandtabs(8) for i in range(start, end + 1)]}


_NO_SPACE_AFTER = {"(", "[", "!", "~", ".", "->"}
_NO_SPACE_BEFORE = {")", "]", ",", ";", ".", "->", "(", "["}


def normalise(expr):
    """spatch prints tokens separated by spaces; make it read like C: `in_atomic() || x`."""
    if expr is None:
        return None
    toks = expr.split()
    out = ""
    prev = None
    for tok in toks:
        if prev is None:
            out = tok
        elif tok in _NO_SPACE_BEFORE or prev in _NO_SPACE_AFTER:
            if tok == "(" and prev not in _NO_SPACE_AFTER and not re.match(r"^\w+$", prev):
                out += " " + tok
            else:
                out += tok
        elif prev == "-" and (len(out) < 2 or out[-2] in " (") :
            out += tok      # unary minus: "return -EBUSY"
        else:
            out += " " + tok
        prev = tok
    return out


def strip_parens(expr):
    e = expr.strip()
    while e.startswith("(") and e.endswith(")"):
        depth = 0
        for i, ch in enumerate(e):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(e) - 1:
                return e
        e = e[1:-1].strip()
    return e


def textual_calls(blanked_text, names):
    """[(line, col, name)] of `name (` in code (comments/strings already blanked).

    Member calls (`->name(`, `.name(`), definitions and declarations (`bool name(`)
    and #define of the name are left out: they are not uses.
    """
    if not names:
        return []
    pat = re.compile(r"(?<![\w.>])(" + "|".join(re.escape(n) for n in sorted(names)) + r")\s*\(")
    out = []
    line_starts = [0]
    for m in re.finditer("\n", blanked_text):
        line_starts.append(m.end())
    import bisect
    for m in pat.finditer(blanked_text):
        pos = m.start(1)
        before = blanked_text[max(0, pos - 80):pos].rstrip()
        if re.search(r"#\s*define\s*$", before):
            continue
        prevword = re.search(r"(\w+|\*)\s*$", before)
        if prevword and prevword.group(1) not in ("return", "case", "sizeof", "else", "do"):
            if before.endswith(("*",)) or re.search(r"\w$", before):
                continue
        if before.endswith("->"):
            continue
        line = bisect.bisect_right(line_starts, pos)
        out.append((line, pos - line_starts[line - 1], m.group(1)))
    return out
