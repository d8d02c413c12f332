"""Reading C source text: comments/strings blanked, #define and #if context, snippets.

Only ever reads; the rewriting of C is Coccinelle's job.
"""

import bisect
import collections
import re

# One unnamed alternation, each branch behind the character that opens it: sre then skips
# to the next '/', '"' or '\'' at C speed (named groups and a bare alternation made it try
# every offset; blank() was the analysis's largest single cost).
_TOKEN = re.compile(r"""[/"'](?:(?<=/)/[^\n]*|(?<=/)\*.*?(?:\*/|\Z)|(?<=")(?:\\.|[^"\\\n])*"?|(?<=')(?:\\.|[^'\\\n])*'?)""",
                    re.S)


def _spaces(m):
    s = m.group(0)
    if "\n" not in s:
        return " " * len(s)
    return "\n".join(" " * len(p) for p in s.split("\n"))


# `#include <rtw_xmit.h>`: a header's name is no mention of the function rtw_xmit().
_SYS_INCLUDE = re.compile(r"#[ \t]*include[ \t]*(<[^>\n]*>)")


def blank(text):
    """Same length and line structure as `text`, with comments, string/char literals and
    the <path> of #include lines blanked."""
    text = _TOKEN.sub(_spaces, text)
    if "include" in text:
        text = _SYS_INCLUDE.sub(lambda m: m.group(0)[:m.start(1) - m.start(0)] + " " * len(m.group(1)), text)
    return text


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


def _continued(lines):
    """Indexes of the lines that end with a backslash (joined with the next)."""
    return [i for i, l in enumerate(lines) if "\\" in l and l.rstrip("\n").endswith("\\")]


def _join_from(lines, k):
    """(first, last, text) of the logical line that starts at index k."""
    text = lines[k].rstrip("\n")
    j = k
    while text.endswith("\\") and j + 1 < len(lines):
        j += 1
        text = text[:-1] + " " + lines[j].rstrip("\n")
    return k + 1, j + 1, text


def _logical(lines):
    out = []
    i = 0
    for k in _continued(lines):
        if k < i:
            continue                    # inside the logical line already joined
        out.extend((j + 1, j + 1, lines[j].rstrip("\n")) for j in range(i, k))
        first, last, text = _join_from(lines, k)
        out.append((first, last, text))
        i = last
    out.extend((j + 1, j + 1, lines[j].rstrip("\n")) for j in range(i, len(lines)))
    return out


def logical_lines(lines):
    """[(first_line_no, last_line_no, joined_text)] joining backslash continuations (1-based)."""
    return _memo("logical", lines, _logical)


def _logical_with(lines, word):
    """The logical lines (as _logical gives them) whose text contains `word`, found from the
    physical lines that contain it: the #define and #if tables of every file the graph
    reads are built from these, and joining all of a header's lines was most of their cost."""
    hits = [i for i, l in enumerate(lines) if word in l]
    if not hits:
        return []
    cont = set(_continued(lines))
    out = []
    done = -1
    for k in hits:
        if k <= done:
            continue
        while k > 0 and (k - 1) in cont:
            k -= 1
        first, last, text = _join_from(lines, k)
        done = last - 1
        if word in text:
            out.append((first, last, text))
    return out


_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)$")


def _defines(lines):
    out = []
    for first, last, text in _logical_with(lines, "define"):
        m = _DEFINE.match(text)
        if m:
            out.append((first, last, (m.group(1), m.group(3), m.group(4).strip())))
    return out


def defines(lines):
    """[(first_line_no, last_line_no, (name, params or None, body))] of the file's #defines."""
    return _memo("defines", lines, _defines)


def macro_at(lines, line_no):
    """(name, params or None, body) of the #define that spans line_no, else None."""
    defs = defines(lines)
    i = bisect.bisect_right(defs, (line_no, float("inf"))) - 1
    if i >= 0 and defs[i][0] <= line_no <= defs[i][1]:
        return defs[i][2]
    return None


_PAIRS = {}


def matching(text, i, opener="{", closer="}"):
    """Index of the `closer` matching the first `opener` at or after i; len(text) if none."""
    pat = _PAIRS.get((opener, closer))
    if pat is None:
        pat = _PAIRS[(opener, closer)] = re.compile("[%s]" % re.escape(opener + closer))
    depth = 0
    for m in pat.finditer(text, i):
        if m.group() == opener:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()
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
    out = []
    for first, last, text in _logical_with(lines, "#"):
        m = _COND.match(blank(text))
        if not m:
            continue
        kw, arg = m.group(1), " ".join(m.group(2).split())
        guard = False
        if kw == "ifndef":
            nxt = _join_from(lines, last)[2] if last < len(lines) else ""
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


_CONST = re.compile(r"^\(*\s*([01])\s*\)*$")


def _never_compiled(lines):
    """[(first, last)] line spans (1-based, directives excluded) that no configuration
    compiles: the body of `#if 0`, and every branch after a `#if 1` (or `#elif 1`)."""
    out = []
    stack = []                        # [parent dead, a branch is surely taken, this branch dead]
    dead_from = None
    for first, kw, arg, _guard in _memo("directives", lines, _directives):
        was_dead = bool(stack) and stack[-1][2]
        m = _CONST.match(arg) if kw in ("if", "elif") else None
        value = None if m is None else m.group(1) == "1"
        if kw in ("if", "ifdef", "ifndef"):
            parent = was_dead
            stack.append([parent, value is True, parent or value is False])
        elif kw == "elif" and stack:
            f = stack[-1]
            f[2] = f[0] or f[1] or value is False
            f[1] = f[1] or value is True
        elif kw == "else" and stack:
            f = stack[-1]
            f[2] = f[0] or f[1]
            f[1] = True
        elif kw == "endif" and stack:
            stack.pop()
        now_dead = bool(stack) and stack[-1][2]
        if was_dead and not now_dead:
            if dead_from < first:
                out.append((dead_from, first - 1))
            dead_from = None
        elif now_dead and not was_dead:
            dead_from = first + 1
        elif now_dead and dead_from is not None and dead_from <= first:
            out.append((dead_from, first - 1))     # a nested directive line stays as it is
            dead_from = first + 1
    if dead_from is not None and dead_from <= len(lines):
        out.append((dead_from, len(lines)))
    return [(a, b) for a, b in out if a <= b]


def never_compiled(lines):
    """The line spans under `#if 0` and after `#if 1` (see _never_compiled), memoised:
    spatch passes over them as comments, and a mention there is no caller."""
    return _memo("dead", lines, _never_compiled)


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
