"""What the tree's own kernel-doc says about an ops-struct callback's context.

Subsystems document their callbacks where the struct is declared: mac80211's
`struct ieee80211_ops` says per member "can sleep" or "must be atomic", DRM's funcs
structs carry a `/** @member: ... */` block on each member. For a callback that no
entry in entries.STRUCT_FIELDS covers, that text decides — when it is unambiguous:
a description that says both, or says neither, leaves the callback unknown.
"""

import os
import re

from .. import ctext
from . import entries as E
from . import members as M

SLEEPS = re.compile(r"\b(?:can|may|might|is allowed to|are allowed to)\s+sleep\b|"
                    r"\b(?:called|runs?|invoked|executed)\s+(?:in|from)\s+process\s+context\b", re.I)
ATOMIC = re.compile(r"\bmust\s+be\s+atomic\b|\b(?:must|may|can|should)\s+not\s+(?:sleep|block)\b|"
                    r"\bcannot\s+(?:sleep|block)\b|\bcan't\s+(?:sleep|block)\b|\bnot\s+allowed\s+to\s+sleep\b|"
                    r"\b(?:called|runs?|invoked|executed)\s+(?:in|from|with)\s+(?:atomic|interrupt|irq|"
                    r"hardirq|softirq|tasklet|bh)\s+context\b|\bwith\s+(?:interrupts|irqs)\s+disabled\b", re.I)
# Phrases that make "can sleep" conditional or about someone else: leave those alone.
HEDGES = re.compile(r"\bunless\b|\bif\s+\w+\s+(?:is|are)\s+(?:set|not)\b|\bexcept\b", re.I)
# "Called with the wiphy mutex held", "the helper library will already hold
# &drm_mode_config.connection_mutex": only a task that may sleep can take a mutex (or the
# RTNL, a mutex), so its caller runs in process context. Weaker than "can sleep": the
# caller might take a spinlock after the mutex, so a paragraph that names any other kind
# of lock or context gives no answer, nor does a sentence that negates the phrase.
MUTEX_HELD = re.compile(r"\b(?:with|under|hold|holds|holding|held)\s+(?:the\s+|a\s+|its\s+)?"
                        r"(?:[\w&.>-]+\s+)?(?:[\w&.>-]*mutex|rtnl(?:_lock)?|RTNL)\b", re.I)
OTHER_CONTEXT = re.compile(r"spin|\brcu|\birqs?\b|interrupt|softirq|\bbh\b|tasklet|preempt|"
                           r"atomic\s+context|raw_|seqlock|rwlock", re.I)
NEGATION = re.compile(r"\bnot\b|\bnever\b|\bwithout\b|n't\b|\bno\b|\bunless\b|\bif\b", re.I)


def _comment_text(block):
    lines = []
    for l in block.splitlines():
        l = re.sub(r"^\s*/?\*+/?", "", l).rstrip()
        lines.append(re.sub(r"\*/\s*$", "", l))
    return "\n".join(lines)


def _member_doc(body, body_off, field):
    """(offset, text) of the comment block right before the member `(*field)(`, if any:
    only the member's type may stand between them (DRM's `/** @field: ... */` style)."""
    m = re.search(r"\(\s*\*\s*%s\s*\)\s*\(" % re.escape(field), body)
    if not m:
        return None
    head = body[:m.start()]
    j = head.rfind("*/")
    if j < 0 or max(head.rfind(";"), head.rfind("{")) > j:
        return None
    start = head.rfind("/*", 0, j)
    if start < 0:
        return None
    return body_off + start, _comment_text(head[start:j + 2])


def _struct_doc_para(text, struct_off, field):
    """(offset, text) of the `@field:` paragraph of the kernel-doc block before the struct."""
    end = text.rfind("*/", 0, struct_off)
    if end < 0 or text[end + 2:struct_off].strip():
        return None
    start = text.rfind("/**", 0, end)
    if start < 0:
        return None
    block = text[start:end + 2]
    m = re.search(r"^\s*\*\s*@%s\s*:(.*?)(?=^\s*\*\s*@[\w.]+\s*:|\Z)" % re.escape(field), block, re.M | re.S)
    if not m:
        return None
    return start + m.start(), _comment_text(m.group(0))


def verdict(doc):
    """SLEEPABLE / ATOMIC when the text says exactly one of them, else None."""
    flat = " ".join(doc.split())
    s, a = SLEEPS.search(flat), ATOMIC.search(flat)
    if not s and not a and not OTHER_CONTEXT.search(flat):
        held = MUTEX_HELD.search(flat)
        if held and not NEGATION.search(_sentence(flat, held)):
            s = held
    if bool(s) == bool(a) or HEDGES.search(flat):
        return None, None
    m = s or a
    return (E.SLEEPABLE if s else E.ATOMIC), _sentence(flat, m)


def _sentence(flat, m):
    """The sentence of flat that holds the match m. A dot inside a word
    (&drm_mode_config.connection_mutex) ends no sentence."""
    begin = flat.rfind(". ", 0, m.start()) + 1
    end = flat.find(". ", m.end())
    return flat[begin:end + 1 if end >= 0 else len(flat)].strip()


class CallbackDocs:
    """Finds struct definitions through the scan's prefilter (its word index is kept between
    runs, so a warm scan searches nothing); `prefetch` asks for a round's structs at once."""

    def __init__(self, root, pre):
        self.root = root
        self.pre = pre
        self._found = {}        # (stype, field, dirs) -> lookup's answer: asked once a callback
        self._defines = {}      # header -> the struct tags it defines

    def _read(self, hdr):
        try:
            with open(os.path.join(self.root, hdr), encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError:
            return None

    def prefetch(self, stypes):
        self.pre.files_with(sorted(s for s in stypes if _tagged(s)))

    def _headers_defining(self, stype, dirs):
        """Headers under dirs that mention stype (lookup checks they define it)."""
        return [f for f in self.pre.files_with([stype]) if f.endswith(".h")
                and any(d == "." or f.startswith(d + "/") for d in dirs)]

    def lookup(self, stype, field, dirs):
        """(context, fact, header, line) from the documentation of stype.field, or None.
        dirs: where struct definitions are looked for (include/ and the driver's directory;
        an out-of-tree module directory has only itself)."""
        if not _tagged(stype):
            return None
        key = (stype, field, tuple(dirs))
        if key not in self._found:
            self._found[key] = self._lookup(stype, field, dirs)
        return self._found[key]

    def _lookup(self, stype, field, dirs):
        for hdr in self._headers_defining(stype, dirs):
            if hdr in self._defines and stype not in self._defines[hdr]:
                continue
            text = self._read(hdr)
            if text is None:
                continue
            if hdr not in self._defines:
                self._defines[hdr] = frozenset(M.STRUCT_DEF.findall(text))
            for m in re.finditer(r"\bstruct\s+%s\s*\{" % re.escape(stype), text):
                body = text[m.end() - 1:ctext.matching(text, m.end() - 1) + 1]
                if not re.search(r"\(\s*\*\s*%s\s*\)\s*\(" % re.escape(field), body):
                    continue
                for found in (_member_doc(body, m.end() - 1, field), _struct_doc_para(text, m.start(), field)):
                    if not found:
                        continue
                    off, doc = found
                    ctx, quote = verdict(doc)
                    if ctx:
                        line = text.count("\n", 0, off) + 1
                        return ctx, f"struct {stype}.{field} is documented: \"{quote}\"", hdr, line
                return None
        return None


def _tagged(stype):
    """A struct tag that kernel-doc can document (not an untagged typedef, members.UNTAGGED,
    nor a type the text left open, "?...")."""
    return bool(stype) and not stype.startswith("?") and " " not in stype
