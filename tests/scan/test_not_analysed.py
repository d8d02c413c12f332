"""What fails a scan (in-scope code spatch could not read) and what is only listed (headers
outside the scope, trace event definitions)."""

from atomic_janitor import ctext
from atomic_janitor.scan import detect
from atomic_janitor.pipeline import blocking_not_analysed

EVENT = """#include <linux/tracepoint.h>
TRACE_EVENT(amdtp_packet,
	TP_PROTO(const struct amdtp_stream *s),
	TP_ARGS(s),
	TP_STRUCT__entry(__field(bool, in_softirq)),
	TP_fast_assign(
		__entry->in_softirq = in_softirq();
	),
	TP_printk("%d (", __entry->in_softirq)
);

static inline int after(void)
{
	return in_softirq();
}
"""


def test_trace_event_at():
    text = ctext.blank(EVENT)          # as detect passes it: the "(" in the string is gone
    assert detect.trace_event_at(text, 7) == "TRACE_EVENT"
    assert detect.trace_event_at(text, 14) is None
    assert detect.trace_event_at("int x;\n", 1) is None


def _doc(*entries):
    return {"not_analysed": [{"file": f, "line": 1, "reason": r} for f, r in entries]}


def test_only_in_scope_failures_block():
    doc = _doc(("include/linux/tracepoint.h", "textual call of in_nmi() that spatch did not match"),
               ("sound/firewire/amdtp-stream-trace.h", detect.TRACE_EVENT_REASON + " TRACE_EVENT(): ..."),
               ("drivers/foo/bar.c", "parse error"),
               ("driversx/baz.c", "parse error"))
    got = [d["file"] for d in blocking_not_analysed(doc, ["drivers/", "sound/", "include/drm/"])]
    assert got == ["drivers/foo/bar.c"]
    assert len(blocking_not_analysed(doc, ["."])) == 3
