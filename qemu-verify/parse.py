"""Stage "parse": strict KTAP parsing and the splat scan of the whole console.

Pessimistic like the kernel's tools/testing/kunit/kunit_parser.py: every test starts CRASHED
and only an explicit, consistent result line changes that; a missing KTAP header, a missing
plan, a missing case (truncated output), "0 tests", a result index out of order or a panic is
never a pass.  Lines are matched after stripping a printk timestamp and leading whitespace
(like kunit_parser in 6.1, nesting comes from "KTAP version"/"# Subtest:" lines and plans).

Splats: every kernel splat in the console is classified; a KTAP case may declare the splats it
provokes between "# aj-expect-splat: KIND[,KIND...]" and "# aj-expect-splat-end" lines.  A splat
outside a declaration (or of another kind) fails verify and is quoted; a declared splat that
never appeared fails too.
"""
import dataclasses
import enum
import re
from typing import Dict, Iterable, List, Optional, Tuple


class Status(enum.Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    SKIPPED = "skipped"
    CRASHED = "crashed"
    NO_TESTS = "no_tests"

    @property
    def ok(self) -> bool:
        return self in (Status.SUCCESS, Status.SKIPPED)


_WORST = [Status.SUCCESS, Status.SKIPPED, Status.NO_TESTS, Status.FAILURE, Status.CRASHED]


def worst(a: Status, b: Status) -> Status:
    return a if _WORST.index(a) >= _WORST.index(b) else b


def combine(children: List["Test"]) -> Status:
    """kunit's rule: any failure/crash wins; all skipped is skipped; else success."""
    sts = [c.status for c in children]
    if not sts:
        return Status.SUCCESS
    bad = [s for s in sts if s not in (Status.SUCCESS, Status.SKIPPED)]
    if bad:
        st = bad[0]
        for b in bad[1:]:
            st = worst(st, b)
        return st
    return Status.SKIPPED if all(s == Status.SKIPPED for s in sts) else Status.SUCCESS


@dataclasses.dataclass
class Test:
    name: str = ""
    status: Status = Status.CRASHED
    index: int = 0
    expected_count: Optional[int] = None
    subtests: List["Test"] = dataclasses.field(default_factory=list)
    log: List[str] = dataclasses.field(default_factory=list)
    errors: List[str] = dataclasses.field(default_factory=list)
    directive: str = ""

    def walk(self) -> Iterable["Test"]:
        yield self
        for t in self.subtests:
            yield from t.walk()

    def counts(self) -> Dict[str, int]:
        c = {s.value: 0 for s in Status}
        for t in self.walk():
            if t is not self and not t.subtests:
                c[t.status.value] += 1
        return c


_TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
_VERSION = re.compile(r"^K?TAP version (\d+)$")
_SUBTEST = re.compile(r"^# Subtest: (.*)$")
_PLAN = re.compile(r"^1\.\.(\d+)$")
_RESULT = re.compile(r"^(ok|not ok) (\d+)(?: -)?(?: ([^#]*?))?\s*(?:# (.*))?$")
# kunit_parser's "end of test" markers plus the ones our guest produces
_END = re.compile(r"(List of all partitions:|Kernel panic - not syncing|reboot: System halted|"
                  r"reboot: Restarting system|reboot: Power down|# aj-exit: code=)")
_PANIC = re.compile(r"Kernel panic - not syncing")


def clean(line: str) -> str:
    return _TS.sub("", line.rstrip("\r\n")).strip()


def extract_ktap(console: str) -> List[str]:
    """Lines from the first KTAP/TAP version line to an end marker, cleaned."""
    out: List[str] = []
    started = False
    for raw in console.splitlines():
        line = clean(raw)
        if not started:
            if _VERSION.match(line):
                started = True
                out.append(line)
            continue
        if _END.search(line):
            break
        out.append(line)
    return out


class _Lines:
    def __init__(self, lines: List[str]):
        self.lines = lines
        self.i = 0

    def peek(self) -> Optional[str]:
        return self.lines[self.i] if self.i < len(self.lines) else None

    def pop(self) -> str:
        self.i += 1
        return self.lines[self.i - 1]

    def eof(self) -> bool:
        return self.i >= len(self.lines)

    def has_structure_ahead(self) -> bool:
        """Is there a KTAP line (not only diagnostics) before the end?"""
        for l in self.lines[self.i:]:
            if _VERSION.match(l) or _SUBTEST.match(l) or _PLAN.match(l) or _RESULT.match(l):
                return True
        return False

    def skip_diag(self, into: List[str]) -> None:
        while not self.eof():
            l = self.peek()
            if _VERSION.match(l) or _SUBTEST.match(l) or _PLAN.match(l) or _RESULT.match(l):
                return
            into.append(self.pop())


def _status_of(ok: str, directive: str) -> Status:
    if directive.upper().startswith("SKIP"):
        return Status.SKIPPED
    return Status.SUCCESS if ok == "ok" else Status.FAILURE


def _parse_test(lines: _Lines, index: int, top: bool) -> Test:
    t = Test(index=index)
    lines.skip_diag(t.log)
    has_header = False
    if lines.peek() is not None and _VERSION.match(lines.peek()):
        lines.pop()
        has_header = True
        lines.skip_diag(t.log)
    if lines.peek() is not None and _SUBTEST.match(lines.peek()):
        t.name = _SUBTEST.match(lines.pop()).group(1).strip()
        has_header = True
        lines.skip_diag(t.log)
    if top and not has_header:
        t.errors.append("no KTAP header")
        return t
    if has_header:
        if lines.peek() is not None and _PLAN.match(lines.peek()):
            t.expected_count = int(_PLAN.match(lines.pop()).group(1))
        else:
            t.errors.append("missing plan line")
        n = t.expected_count or 0
        for i in range(1, n + 1):
            if not lines.has_structure_ahead():
                lines.skip_diag(t.log)
                t.errors.append(f"missing test {i} of {n} (output truncated)")
                t.subtests.append(Test(name=f"<missing {i}>", index=i,
                                       errors=["missing (output truncated)"]))
                continue
            sub = _parse_test(lines, i, False)
            t.subtests.append(sub)
        if t.expected_count == 0:
            t.errors.append("0 tests")
    if top:
        # the top level has no result line of its own
        child = combine(t.subtests)
        if t.expected_count is None:
            t.status = Status.CRASHED
        elif t.expected_count == 0:
            t.status = Status.NO_TESTS
        elif any("missing test" in e for e in t.errors):
            t.status = Status.CRASHED
        else:
            t.status = child
        lines.skip_diag(t.log)
        while not lines.eof():
            extra = lines.pop()
            if _RESULT.match(extra) or _PLAN.match(extra) or _VERSION.match(extra):
                t.errors.append(f"unexpected line after the last test: {extra}")
                t.status = worst(t.status, Status.FAILURE)
        return t
    lines.skip_diag(t.log)
    if lines.eof():
        t.errors.append("missing result line (output truncated)")
        t.status = Status.CRASHED
        return t
    m = _RESULT.match(lines.peek())
    if not m:
        t.errors.append(f"expected a result line, got: {lines.peek()}")
        t.status = Status.CRASHED
        return t
    lines.pop()
    got_idx = int(m.group(2))
    name = (m.group(3) or "").strip()
    t.directive = (m.group(4) or "").strip()
    if t.name and name and name != t.name:
        t.errors.append(f"result name {name!r} does not match subtest {t.name!r}")
    t.name = t.name or name
    own = _status_of(m.group(1), t.directive)
    if got_idx != index:
        t.errors.append(f"expected test number {index}, got {got_idx}")
        own = worst(own, Status.FAILURE)
    child = combine(t.subtests)
    if child == Status.SKIPPED:
        child = Status.SUCCESS     # an all-skipped suite does not fail its parent's result
    if t.subtests and own == Status.SUCCESS and child not in (Status.SUCCESS, Status.SKIPPED):
        t.errors.append("reported ok although a subtest did not pass")
    status = own if own == Status.SKIPPED and not t.subtests else worst(own, child)
    if any(e.startswith("missing") for e in t.errors):
        status = worst(status, Status.CRASHED)
    elif t.errors:
        status = worst(status, Status.FAILURE)
    t.status = status
    return t


def parse_ktap(console: str) -> Test:
    lines = extract_ktap(console)
    if not lines:
        return Test(name="main", status=Status.CRASHED, errors=["no KTAP output"])
    t = _parse_test(_Lines(lines), 0, True)
    t.name = "main"
    if _PANIC.search(console):
        t.errors.append("kernel panic")
        t.status = Status.CRASHED
    return t


def failures(t: Test, path: str = "") -> List[str]:
    """Human lines naming every failed or crashed test and its errors."""
    out = []
    here = f"{path}.{t.name}" if path else t.name
    for e in t.errors:
        out.append(f"{here}: {e}")
    for s in t.subtests:
        out += failures(s, here)
    if t.subtests == [] and t.status in (Status.FAILURE, Status.CRASHED) and not t.errors:
        diags = [d for d in t.log if d.startswith("#")]
        diag = next((d for d in diags if t.name and t.name in d), diags[-1] if diags else "")
        out.append(f"{here}: {t.status.value}{' ' + diag if diag else ''}")
    return out


# ---------------------------------------------------------------- splats
SPLAT_PATTERNS: List[Tuple[str, re.Pattern]] = [
    ("sleeping-in-atomic", re.compile(r"BUG: sleeping function called from invalid context")),
    ("scheduling-while-atomic", re.compile(r"BUG: scheduling while atomic")),
    ("lockdep", re.compile(r"BUG: Invalid wait context|INFO: trying to register non-static key|"
                           r"BUG: MAX_LOCKDEP|^WARNING: (?!CPU: )")),
    ("i2c-no-atomic-handler", re.compile(r"No atomic I2C transfer handler")),
    ("warning", re.compile(r"^WARNING: CPU: \d+ PID: \d+ at ")),
    ("oops", re.compile(r"^Oops: |BUG: kernel NULL pointer dereference|BUG: unable to handle|"
                        r"general protection fault|kernel BUG at |^invalid opcode: ")),
    ("panic", re.compile(r"Kernel panic - not syncing")),
    ("rcu-stall", re.compile(r"rcu: INFO: .*detected stalls|self-detected stall")),
    ("hung-task", re.compile(r"INFO: task .* blocked for more than")),
    ("bug", re.compile(r"\bBUG: ")),
]
_EXPECT = re.compile(r"^# aj-expect-splat: (.*)$")
_EXPECT_END = re.compile(r"^# aj-expect-splat-end$")


@dataclasses.dataclass
class Splat:
    kind: str
    line_no: int      # 1-based line in the console
    text: str
    expected: bool = False


@dataclasses.dataclass
class SplatReport:
    splats: List[Splat]
    missing: List[str]      # declared kinds that never appeared ("KIND (declared at line N)")

    @property
    def unexpected(self) -> List[Splat]:
        return [s for s in self.splats if not s.expected]

    @property
    def ok(self) -> bool:
        return not self.unexpected and not self.missing


def classify(line: str) -> Optional[str]:
    for kind, rx in SPLAT_PATTERNS:
        if rx.search(line):
            return kind
    return None


def scan_splats(console: str) -> SplatReport:
    splats: List[Splat] = []
    missing: List[str] = []
    region: Optional[Tuple[int, List[str], set]] = None   # (line, kinds, seen)
    for no, raw in enumerate(console.splitlines(), 1):
        line = clean(raw)
        m = _EXPECT.match(line)
        if m:
            kinds = [k.strip() for k in m.group(1).split(",") if k.strip()]
            region = (no, kinds, set())
            continue
        if _EXPECT_END.match(line):
            if region:
                for k in region[1]:
                    if k not in region[2]:
                        missing.append(f"{k} (declared at console line {region[0]})")
            region = None
            continue
        kind = classify(line)
        if not kind:
            continue
        s = Splat(kind, no, line)
        if region and kind in region[1]:
            s.expected = True
            region[2].add(kind)
        splats.append(s)
    if region:
        missing += [f"{k} (declared at console line {region[0]}, region never closed)"
                    for k in region[1] if k not in region[2]]
    return SplatReport(splats, missing)


# ---------------------------------------------------------------- guest facts
_HITS = re.compile(r"^# aj-hits: (\S+) (\d+)$")
_PROBE_FAIL = re.compile(r"^# aj-probe-failed: (\S+) (\S+)(?: err=(\S+))?$")
_CTX = re.compile(r"^# aj-ctx: (\S+) ((?:\w+=\d+ ?)+)$")
_CTX_CALLER = re.compile(r"^# aj-ctx-caller: (\S+) (\w+) (\S.*)$")
# the kinds of hit that aj_ctx.c counts; "unknown": the recorder could not read the context
CONTEXT_KINDS = ("sleepable", "task_atomic", "softirq", "hardirq", "nmi", "unknown")
_DEMO = re.compile(r"^# aj-demo: in_atomic\(\)=(\d) under spin_lock\(\), CONFIG_PREEMPT_COUNT=(\w)")
_PATH = re.compile(r"^# (\w+): path=(\w[\w-]*) expected=(\w+)")


def hits(console: str) -> Dict[str, int]:
    out = {}
    for raw in console.splitlines():
        m = _HITS.match(clean(raw))
        if m:
            ev = m.group(1).split("/")[-1]
            out[ev] = int(m.group(2))
    return out


def failed_probes(console: str) -> List[str]:
    return [m.group(1) for m in (_PROBE_FAIL.match(clean(r)) for r in console.splitlines()) if m]


def contexts(console: str) -> Dict[str, dict]:
    """event -> {"hits", the CONTEXT_KINDS counts, "irqs_off", "preempt_off", "bh_off",
    "rcu", "callers": {kind: first caller seen}}, from the last dump of aj_ctx (the counts
    are cumulative). A dump cut short by the console keeps no partial record: a line that
    does not match whole is not read."""
    out: Dict[str, dict] = {}
    callers: Dict[str, Dict[str, str]] = {}
    for raw in console.splitlines():
        line = clean(raw)
        m = _CTX.match(line)
        if m:
            rec = {k: int(v) for k, v in (kv.split("=") for kv in m.group(2).split())}
            if "hits" in rec and all(k in rec for k in CONTEXT_KINDS):
                out[m.group(1)] = rec
            continue
        m = _CTX_CALLER.match(line)
        if m and m.group(2) in CONTEXT_KINDS:
            callers.setdefault(m.group(1), {}).setdefault(m.group(2), m.group(3))
    for ev, rec in out.items():
        rec["callers"] = dict(sorted(callers.get(ev, {}).items()))
    return dict(sorted(out.items()))


def demo_value(console: str) -> Optional[Tuple[int, str]]:
    for raw in console.splitlines():
        m = _DEMO.match(clean(raw))
        if m:
            return int(m.group(1)), m.group(2)
    return None


def paths(console: str) -> Dict[str, Tuple[str, str]]:
    """recording-adapter cases: name -> (path taken, path expected)."""
    out = {}
    for raw in console.splitlines():
        m = _PATH.match(clean(raw))
        if m:
            out[m.group(1)] = (m.group(2), m.group(3))
    return out


def last_lines(console: str, n: int = 8) -> List[str]:
    lines = [l.rstrip() for l in console.splitlines() if l.strip()]
    return lines[-n:]
