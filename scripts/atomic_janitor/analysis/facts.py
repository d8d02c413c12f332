"""Per-file facts: what cocci/facts-*.cocci reported, plus what only the text shows
(references to a function's address, registrations, guard() scopes, #define bodies)."""

import bisect
import os
import re

from .. import ctext
from . import funchead

RULE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cocci", "facts-context.cocci")
REGION_RULE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cocci", "facts-regions.cocci")
HELPER_RULE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cocci", "facts-helpers.cocci")

KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "else", "do", "case", "goto", "typeof",
            "__typeof__", "defined", "alignof", "__alignof__", "_Static_assert", "__builtin_expect"}
GUARD_ATOMIC = re.compile(r"^(raw_)?spinlock\w*$|^(read|write)_lock\w*$|^irq(save)?$|^preempt\w*$|^rcu$|"
                          r"^local_lock\w*$|^bh$|^spinlock_try\w*$")
KMAP_ACQ, KMAP_REL = {"kmap_atomic", "kmap_atomic_prot", "kmap_atomic_pfn"}, {"kunmap_atomic"}


class Call:
    __slots__ = ("line", "col", "callee", "func", "regions", "entry", "after_release")

    def __init__(self, line, col, callee, func):
        self.line, self.col, self.callee, self.func = line, col, callee, func
        self.regions = []            # [(family, line of the acquire)]
        self.entry = False           # some path from the entry reaches it with no region open
        self.after_release = False


def _renamed(records, heads):
    """The records with the functions that spatch named after a function-head macro under the
    name of the function the macro's head defines (funchead.py)."""
    out = []
    for r in records:
        k = r["kind"]
        key = "element" if k == "call" else "name"
        macro = r.get(key) if k in ("def", "static", "call", "acquires", "releases") else None
        h = heads.get(macro)
        if h is None:
            out.append(r)
            continue
        r = dict(r, **{key: h[0]})
        if k == "def":
            r["params"] = h[2]
            r["head_macro"] = macro
            if h[1]:
                out.append(dict(r, kind="static"))
        out.append(r)
    return out


class FileFacts:
    def __init__(self, rel, lines, records, failed=None):
        self.rel = rel
        self.lines = lines
        self.failed = failed
        self.defs = {}               # name -> {"line", "static", "params"}
        self.calls = {}              # (line, col) -> Call
        self.acquires = {}           # function -> (family, line)
        self.releases = {}           # function -> line
        self.head_macros = None      # macro -> (function, static, params, define lines): funchead
        self._text = None
        self._text_lines = None
        self._starts = None
        self.add(records)
        self._lexical_regions()

    def add(self, records):
        if self.head_macros is None and any(r["kind"] == "def" for r in records):
            self.head_macros = funchead.renames(self.lines, {r["name"] for r in records if r["kind"] == "def"})
        if self.head_macros:
            records = _renamed(records, self.head_macros)
        for r in records:
            k = r["kind"]
            if k == "def":
                d = self.defs.setdefault(r["name"], {"line": r["line"], "static": False, "params": r.get("params", "")})
                d["params"] = r.get("params", d["params"])
                if "head_macro" in r:
                    d["head_macro"] = r["head_macro"]
            elif k == "static":
                self.defs.setdefault(r["name"], {"line": r["line"], "static": True, "params": ""})["static"] = True
            elif k == "call":
                self.calls.setdefault((r["line"], r["col"]), Call(r["line"], r["col"], r["callee"], r["element"]))
        for r in records:
            k = r["kind"]
            c = self.calls.get((r["line"], r["col"]))
            if k == "region" and c is not None:
                if (r["family"], r["at"]) not in c.regions:
                    c.regions.append((r["family"], r["at"]))
            elif k == "entry" and c is not None:
                if r.get("after_release"):
                    c.after_release = True
                else:
                    c.entry = True
            elif k == "acquires":
                self.acquires.setdefault(r["name"], (r["family"], r["at"]))
            elif k == "releases":
                self.releases.setdefault(r["name"], r["at"])

    def macro_at(self, line):
        return ctext.macro_at(self.lines, line)

    # ------------------------------------------------------------------ text
    @property
    def text(self):
        if self._text is None:
            text = ctext.blank("".join(self.lines))
            self._starts = [0]
            for ln in self.lines:
                self._starts.append(self._starts[-1] + len(ln))
            # Code under `#if 0` is compiled by no configuration: a mention there is no
            # caller, no registration and no use (vendor drivers keep whole old paths so).
            spans = ctext.never_compiled(self.lines) if "#" in text else ()
            if spans:
                parts, at = [], 0
                for a, b in spans:
                    s, e = self._starts[a - 1], self._starts[b]
                    parts += [text[at:s], re.sub(r"[^\n]", " ", text[s:e])]
                    at = e
                text = "".join(parts) + text[at:]
            self._text = text
        return self._text

    @property
    def text_lines(self):
        """text split into lines (textual.py walks them)."""
        if self._text_lines is None:
            self._text_lines = self.text.split("\n")
        return self._text_lines

    def offset(self, line, col):
        self.text
        return self._starts[line - 1] + col if line - 1 < len(self._starts) else len(self._text)

    def line_of(self, off):
        self.text
        return bisect.bisect_right(self._starts, off)

    def _lexical_regions(self):
        """guard()/scoped_guard() scopes (lexical by definition) and kmap_atomic() spans."""
        by_func = {}
        for c in self.calls.values():
            by_func.setdefault(c.func, []).append(c)
        for func, calls in by_func.items():
            calls.sort(key=lambda c: (c.line, c.col))
            kmaps = [c.line for c in calls if c.callee in KMAP_ACQ]
            if kmaps:
                unmaps = [c.line for c in calls if c.callee in KMAP_REL]
                last = max(unmaps) if unmaps else 10 ** 9
                for c in calls:
                    if kmaps[0] < c.line < last or (c.line > kmaps[0] and not unmaps):
                        c.regions.append(("kmap", kmaps[0]))
        if "guard" not in "".join(self.lines):
            return
        text = self.text
        for m in re.finditer(r"\b(scoped_guard|guard)\s*\(\s*(\w+)", text):
            if not GUARD_ATOMIC.match(m.group(2)):
                continue
            start = m.end()
            if m.group(1) == "guard":
                end = _block_end(text, m.start())
            else:
                close = _match_paren(text, text.index("(", m.start()))
                end = _stmt_end(text, close + 1)
            line = self.line_of(m.start())
            for c in self.calls.values():
                off = self.offset(c.line, c.col)
                if start <= off < end:
                    c.regions.append(("guard(%s)" % m.group(2), line))


def _match_paren(text, i):
    return ctext.matching(text, i, "(", ")")


def _block_end(text, i):
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            if depth == 0:
                return j
            depth -= 1
    return len(text)


def _stmt_end(text, i):
    j = i
    while j < len(text) and text[j].isspace():
        j += 1
    if j < len(text) and text[j] == "{":
        k = ctext.matching(text, j)
        if k < len(text):
            return k
    k = text.find(";", j)
    return len(text) if k < 0 else k


# ------------------------------------------------------------- references

class Ref:
    """A textual mention of a function name that is not a call spatch saw."""
    __slots__ = ("file", "line", "kind", "detail", "func", "macro")

    def __init__(self, file, line, kind, detail, func=None, macro=None):
        self.file, self.line, self.kind, self.detail, self.func, self.macro = file, line, kind, detail, func, macro


def _prev_token(text, i):
    j = i - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    if j < 0:
        return ""
    if text[j].isalnum() or text[j] == "_":
        k = j
        while k >= 0 and (text[k].isalnum() or text[k] == "_"):
            k -= 1
        return text[k + 1:j + 1]
    return text[j]


def _enclosing_call(text, i):
    """(callee, argument index) of the innermost call whose parentheses hold offset i."""
    name, commas, _paren = call_around(text, i)
    return name, commas


def call_around(text, i):
    """(callee, argument index, offset of its `(`) of the innermost call whose parentheses
    hold offset i; (None, None, None) when there is none."""
    depth = 0
    commas = 0
    j = i - 1
    lim = max(0, i - 4000)
    while j >= lim:
        ch = text[j]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    return None, None, None
                name = _prev_token(text, j)
                if name and (name[0].isalpha() or name[0] == "_") and name not in KEYWORDS:
                    return name, commas, j
                return None, None, None
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
        elif ch == ";" and depth == 0:
            return None, None, None
        j -= 1
    return None, None, None


_COND = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[^\n]*", re.M)


def _cond_groups(text, lim, i):
    """The #if groups of text[lim:i]: ([(start, end, [branch spans], has #else)] of those
    closed before i, [[branch spans]] of those still open at i, [directive line spans]). A
    group opened before lim counts from lim."""
    closed, stack, lines = [], [], []
    for m in _COND.finditer(text, lim, i):
        d = m.group(1)
        lines.append((m.start(), m.end()))
        if d.startswith("if"):
            stack.append([m.start(), [m.end()], False])
        elif not stack:
            stack.append([lim, [lim], False])   # a group opened before lim: its head is cut off
            stack[-1][1] += [m.start(), m.end()]
            if d == "endif":
                g = stack.pop()
                closed.append((g[0], m.end(), list(zip(g[1][0::2], g[1][1::2])), True))
        elif d in ("elif", "else"):
            stack[-1][1] += [m.start(), m.end()]
            stack[-1][2] = stack[-1][2] or d == "else"
        else:
            g = stack.pop()
            b = g[1] + [m.start()]
            closed.append((g[0], m.end(), list(zip(b[0::2], b[1::2])), g[2]))
    still = [list(zip(g[1][0::2], g[1][1::2])) for g in stack]
    return closed, still, lines


def _branch_view(text, lim, i, groups=None):
    """text[:i] with the branches that are not compiled together with offset i blanked from
    lim on: in each group still open at i, every branch before the one holding i; in each
    group closed before i, every branch but its first. The directive lines go too. groups:
    _cond_groups(text, lim, i), when the caller has it already."""
    closed, still, lines = groups or _cond_groups(text, lim, i)
    blank = list(lines)
    for _s, _e, spans, _else in closed:
        blank.extend(spans[1:])
    for spans in still:
        blank.extend(spans)             # the branches before the one that holds i
    out = list(text[lim:i])
    for s, e in blank:
        for k in range(max(s, lim), e):
            if out[k - lim] != "\n":
                out[k - lim] = " "
    return text[:lim] + "".join(out)


def _commas(text, s, e):
    """The top-level commas of text[s:e], or None when its brackets do not balance."""
    depth = n = 0
    for ch in text[s:e]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            n += 1
    return n if depth == 0 else None


def _enclosing_call_arg(text, i):
    """_enclosing_call for an argument whose list has #if branches (a cast that differs
    between kernel versions, Realtek's tasklet_init()): the call read in the branches
    compiled with offset i. The index is None unless every branch of every group between
    the call's `(` and i has the same number of arguments (an #if with no #else has an
    empty one), and (None, None) when a group holds the `(` itself."""
    lim = max(0, i - 4000)
    if not _COND.search(text, lim, i):
        return _enclosing_call(text, i)
    groups = _cond_groups(text, lim, i)
    callee, idx, paren = call_around(_branch_view(text, lim, i, groups), i)
    if callee is None:
        return None, None
    closed, _still, lines = groups
    for start, end, spans, has_else in closed:
        if end <= paren:
            continue
        if start < paren:
            return None, None           # `#if A f(x, #else g(x, #endif`: which call is it?
        counts = {_commas(text, s, e) for s, e in spans} | (set() if has_else else {0})
        if len(counts) != 1 or None in counts or any(s <= a < e for s, e in spans for a, _b in lines):
            return callee, None         # the branches differ, or nest groups of their own
    return callee, idx


_STRUCT_HEAD = re.compile(r"struct\s+(\w+)\s*(?:\w+\s*)?(?:\[[^\]]*\]\s*)?(?:__\w+\s*)*=\s*$")
_COMPOUND = re.compile(r"\(\s*(?:const\s+)?struct\s+(\w+)\s*\)\s*$")
# `static bcmsdh_driver_t dhd_sdio = {`: a typedef name, resolved to its struct tag by the graph
_TYPEDEF_HEAD = re.compile(r"(?:^|[;{}\s])(?:static\s+)?(?:const\s+)?([A-Za-z_]\w*)\s+(?:const\s+)?\w+\s*"
                           r"(?:\[[^\]]*\]\s*)?(?:__\w+\s*)*=\s*$")
_FIELD = re.compile(r"(\.|->)\s*(\w+)\s*(?:\[[^\]]*\]\s*)?=\s*&?\s*$")
_GNU_FIELD = re.compile(r"[{,]\s*([A-Za-z_]\w*)\s*:\s*&?\s*$")


def _open_brace(text, j, lim, stop_at_semicolon=False):
    """Walk back from offset j to the innermost unclosed `{` (not before lim): (its offset,
    "{"), or (offset, ";") at a statement end when asked, or (lim - 1, None) at the limit.
    It jumps from brace to brace: a vendor's table of structs runs to 40000 characters."""
    depth = 0
    end = j + 1
    while True:
        k = max(text.rfind("{", lim, end), text.rfind("}", lim, end))
        if stop_at_semicolon and depth == 0:
            k = max(k, text.rfind(";", max(k, lim), end))
        if k < lim:
            return lim - 1, None
        ch = text[k]
        if ch == "}":
            depth += 1
        elif ch == "{":
            if depth == 0:
                return k, "{"
            depth -= 1
        else:
            return k, ";"
        end = k


def _code_before(text, j, n=300):
    """text[j - n:j] without the directive lines that end it (`#ifdef WL_NAN` between the
    elements of a table): the code that comes before offset j whichever branch is built."""
    before = text[max(0, j - n):j]
    while True:
        s = before.rstrip()
        nl = s.rfind("\n")
        if nl < 0 or not s[nl + 1:].lstrip().startswith("#"):
            return before
        before = s[:nl + 1]


# How far back an initialiser's `{` is looked for: Broadcom's wl_vendor_cmds[] is 1260 lines.
MAX_INITIALISER = 200000


def _gnu_field(text, i):
    """The member when offset i is the value of GCC's old designator `field: NAME` (Broadcom's
    `static struct usb_driver dbus_usbdev = { name: "x", probe: dbus_usbos_probe, ... }`),
    else None. Only right after the `{` or a `,` of a brace list that an `=` opens: a label
    follows a `;` or a function body's `{`, a case names `case`, a ternary has its `?`."""
    head = re.sub(r"^[ \t]*#.*$", "", text[max(0, i - 200):i], flags=re.M)
    g = _GNU_FIELD.search(head)
    if not g or g.group(1) in KEYWORDS or g.group(1) in ("case", "default"):
        return None
    lim = max(0, i - MAX_INITIALISER)
    j, stop = _open_brace(text, i - 1, lim, stop_at_semicolon=True)
    if stop != "{" or not _code_before(text, j).rstrip().endswith(("=", ",", "{")):
        return None
    return g.group(1)


def _initialiser(text, i):
    """(struct type or None, field) when offset i is the value of `.field = NAME` (or of GCC's
    `field: NAME`) in an initialiser."""
    head = text[max(0, i - 200):i]
    m = _FIELD.search(head)
    gnu = None if m else _gnu_field(text, i)
    if not m and not gnu:
        return None
    field = m.group(2) if m else gnu
    if m and m.group(1) == "->":
        return ("?runtime", field)
    lim = max(0, i - MAX_INITIALISER)
    j, stop = _open_brace(text, i - 1, lim, stop_at_semicolon=True)
    if stop == ";":
        return ("?runtime", field)
    if stop is None:
        return (None, field)
    path = _designators(text, max(0, i - 200) + m.start()) if m else ""
    before = text[max(0, j - 300):j]
    m2 = _STRUCT_HEAD.search(before) or _COMPOUND.search(before)
    if m2:
        return (m2.group(1) + path, field)
    alias = _typedef_head(before)
    if alias:
        return (alias + path, field)
    nested = re.search(r"\.\s*(\w+)\s*=\s*$", before)
    if nested:
        # `.base = { .irq = fn }`: the member's own struct, named by the path from the
        # outer initialiser's type ("outer>base"), which the graph resolves.
        outer = _initialiser(text, j)
        if outer and outer[0] and outer[0] != "?runtime":
            return (f"{outer[0]}>{nested.group(1)}{path}", field)
        return (None, field)
    if not _code_before(text, j).rstrip().endswith(("=", ",", "{")):
        # the `{` of a function body or a block (`f(...)\n{`, `else {`): the first
        # statement in it is an assignment, not an initialiser
        return ("?runtime", field)
    stype = _array_element_type(text, j, lim)
    return (stype + path if stype else None, field)


def array_element_type(text, paren):
    """The struct type (or "typedef T") of the array of structs whose initialiser holds the
    macro use whose `(` is at offset paren as an element of its own: Realtek's
    `struct rtw_cmd wlancmds[] = { GEN_MLME_EXT_HANDLER(join_cmd_hdl, cb) ... }`, where the
    macro expands to `{.cmd_hdl = cmd, .callback = callback_func},`. None otherwise."""
    k = len(text[:paren].rstrip())
    while k > 0 and _word_char(text[k - 1]):
        k -= 1
    # the element before it ends in `,` or in the `)` of another such use (the `,` is in
    # the macro's body), or it is the first
    if not _code_before(text, k).rstrip().endswith(("{", ",", ")")):
        return None
    lim = max(0, k - MAX_INITIALISER)
    j, stop = _open_brace(text, k - 1, lim, stop_at_semicolon=True)
    before = _code_before(text, j).rstrip() if stop == "{" else ""
    if not before.endswith("="):
        return None
    if not re.search(r"\]\s*(?:__\w+\s*)*=$", before):
        return None                     # a single struct: the macro's braces are a member's
    m = _STRUCT_HEAD.search(before[-300:])
    return m.group(1) if m else _typedef_head(before[-300:])


def _designators(text, k):
    """">a>b" for `.a.b.field = ` whose `.field` starts at offset k (a member of a member,
    Realtek's `.usbdrv.probe = rtw_drv_init`), "" for a plain `.field = `."""
    names = []
    while True:
        d = re.search(r"\.\s*(\w+)\s*$", text[max(0, k - 100):k])
        if not d:
            break
        names.insert(0, d.group(1))
        k = max(0, k - 100) + d.start()
    if names and not text[max(0, k - 100):k].rstrip().endswith(("{", ",")):
        return ""                       # not a designator list: the caller decides what it is
    return "".join(">" + n for n in names)


def _array_element_type(text, j, lim):
    """The struct type of an array of structs whose element's `{` is at offset j, or None."""
    if not _code_before(text, j).rstrip().endswith((",", "{")):
        return None
    k, _stop = _open_brace(text, j - 1, lim)       # one brace further out
    before = text[max(0, k - 300):k]
    m = _STRUCT_HEAD.search(before)
    return m.group(1) if m else _typedef_head(before)


def _typedef_head(before):
    """"typedef T" when `before` ends with the head of an initialised variable of a type
    named by a single word (`static bcmsdh_driver_t dhd_sdio =`), which the graph resolves
    to a struct tag (member_calls.typedef_tag); else None."""
    m = _TYPEDEF_HEAD.search(before)
    if m and m.group(1) not in KEYWORDS and m.group(1) not in ("struct", "union", "enum"):
        return "typedef " + m.group(1)
    return None


def _positional(text, i):
    """(struct type, index) when offset i is the index-th element of a positional struct
    initialiser (`{ "smp", smp_show }`, alone or as an element of an array of structs)."""
    at = positional_slot(text, i)
    if at is None:
        return None
    j, commas = at
    lim = max(0, i - 4000)
    before = text[max(0, j - 300):j]
    m = _STRUCT_HEAD.search(before) or _COMPOUND.search(before)
    if m:
        return (m.group(1), commas)
    stype = _array_element_type(text, j, lim) or _typedef_head(before)
    return (stype, commas) if stype else None


def positional_slot(text, i):
    """(offset of the `{`, index) when the name at offset i is the index-th value of a
    positional brace initialiser, whatever its type; index None when the value is an array
    element set by index (`[MSG_X] = fn`), which is no member of a struct."""
    depth, commas, j, lim = 0, 0, i - 1, max(0, i - 4000)
    element = None                      # where the name's own element starts
    while j >= lim:
        ch = text[j]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                break
            depth -= 1
        elif ch == ";" and depth == 0:
            return None
        elif ch == "," and depth == 0:
            commas += 1
            element = j + 1 if element is None else element
        j -= 1
    else:
        return None
    if text[j] != "{" or re.search(r"\.\s*\w+\s*=", text[j + 1:i]) or _gnu_field(text, i):
        return None                     # not braces, or designated (_initialiser's)
    if not re.match(r"&?\s*\w+\s*[,}]", text[i:i + 200]):
        return None
    if re.search(r"\]\s*=\s*&?\s*$", text[j + 1 if element is None else element:i]):
        return j, None                  # `[MSG_X] = fn`: an array's element by index, no struct member
    return j, commas


def _word_char(c):
    return c.isalnum() or c == "_"


def _offsets(ff, name):
    """Offsets of `name` as a whole word (as `\\bname\\b` finds it). str.find skips to each
    candidate at C speed; a per-file word index cost more to build than the graph's queries
    saved, and a regex that starts with \\b gets no such skip."""
    text = ff.text
    out = []
    n = len(name)
    i = text.find(name)
    while i >= 0:
        e = i + n
        if (i == 0 or not _word_char(text[i - 1])) and (e >= len(text) or not _word_char(text[e])):
            out.append(i)
            i = text.find(name, e)
        else:
            i = text.find(name, i + 1)
    return out


def textual_mentions(ff, name):
    """[(offset, line, 'call'|'ref')] for whole-word mentions of name in code (not comments)."""
    out = []
    text = ff.text
    for start in _offsets(ff, name):
        j = start + len(name)
        while j < len(text) and text[j] in " \t\n\\":
            j += 1
        kind = "call" if j < len(text) and text[j] == "(" else "ref"
        out.append((start, ff.line_of(start), kind))
    return out


def _declares(prev):
    """Does the token before a name followed by `(` make it a declarator (`int f(`, `*f(`)?"""
    return bool(prev) and ((prev[0].isalpha() or prev[0] == "_") and prev not in KEYWORDS or prev == "*")


def classify_mention(ff, name, off, line, kind, defs_here):
    """What a mention that is not a spatch-seen call is: 'def', 'decl', 'export', 'macro-call',
    'call-arg', 'init', 'assign', 'other'; with details."""
    text = ff.text
    mac = ff.macro_at(line)
    prev = _prev_token(text, off)
    if kind == "call":
        if name in defs_here and defs_here[name]["line"] == line:
            return ("def", None)
        if mac and (ff.head_macros or {}).get(mac[0], ("",))[0] == name and name in defs_here:
            return ("def", None)                # the head in a function-head macro (funchead.py)
        if mac:
            return ("macro-call", mac[0])
        # the token before, past the directive lines: after `#ifdef CONFIG_X` it is not `X`
        code = _code_before(text, off)
        if _declares(_prev_token(code, len(code))):
            return ("decl", None)
        lim = max(0, off - 4000)
        if _COND.search(text, lim, off) and _declares(_prev_token(_branch_view(text, lim, off), off)):
            # `s32\n#if A\nf(struct wiphy *w)\n#else\nf(struct wiphy *w, struct net_device *d)`:
            # a head that spatch could not parse, its return type before the directives
            return ("decl", None)
        return ("unseen-call", None)
    # a reference
    if mac and mac[0] == name and prev == "define":
        return ("def", None)                    # an object-like macro's own #define
    if prev == "(" and re.match(r"\s*\)\s*\(", text[off + len(name):off + len(name) + 20]):
        # `void * BCMFASTPATH(dhd_start_xmit)(...)`: a head whose name a macro wraps, defining
        # or declaring the function (a type before the macro), not passing it
        paren = len(text[:off].rstrip()) - 1
        wrapper = _prev_token(text, paren)
        if wrapper and (wrapper[0].isalpha() or wrapper[0] == "_"):
            if name in defs_here and defs_here[name]["line"] == line:
                return ("def", None)
            if _declares(_prev_token(text, text.rfind(wrapper, 0, paren))):
                return ("decl", None)
    if re.search(r"EXPORT_SYMBOL\w*\s*\(\s*$", text[max(0, off - 60):off]):
        return ("export", None)
    # `p->name` and `.name` are members: a function's name is no member of any struct,
    # whatever the struct's member is called (_prev_token gives `->` as its last character)
    if prev in ("struct", "enum", "union", "goto", ".") or prev == ">" and text[:off].rstrip().endswith("->"):
        return ("not-function", None)
    if mac and mac[1] is None and re.fullmatch(r"[\s(]*%s[\s)]*" % re.escape(name), ctext.blank(mac[2])):
        # `#define os_malloc rtw_malloc`: an alias, whose every use is a use of the name
        return ("macro-call", mac[0])
    init = _initialiser(text, off)
    if init is not None and init[0] != "?runtime":
        return ("init", init)
    if init is not None:
        lhs = re.split(r"[;{}]", text[max(0, off - 200):off])[-1]
        # the statement starts after a directive line (`#if LINUX_VERSION_CODE < ...`)
        lhs = re.split(r"^[ \t]*#.*$", lhs, flags=re.M)[-1]
        return ("assign", (init[1], lhs.strip()))
    callee, idx = _enclosing_call_arg(text, off)
    if callee:
        return ("call-arg", (callee, idx))
    pos = _positional(text, off)
    if pos is not None:
        return ("init-pos", pos)
    if mac:
        return ("macro-ref", mac[0])
    return ("other", text[max(0, off - 60):off + len(name) + 20].replace("\n", " ").strip())
