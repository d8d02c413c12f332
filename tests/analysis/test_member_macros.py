"""A function-like macro that calls a member named by its argument hides the call from a
textual search for `->member(`: such macros are found through the macros they pass their
arguments to, and a variadic argument may land on any later parameter."""

import types

from atomic_janitor.analysis import member_calls as MC
from atomic_janitor.analysis import members as M
from atomic_janitor.prefilter import Prefilter

HEADER = """\
#define INNER(x, op) ((x)->ops->op(x))
#define OUTER(x, op) INNER(x, op)
#define VA(x, ...) INNER(x, __VA_ARGS__)
#define NAMED_VA(x, args...) INNER(x, ##args)
#define SELF(x, op) SELF(x, op)
#define PLAIN(x, y) foo(x, y)
#define PASTE(x, op) ((x)->ops->op##_cb(x))
#define container_of(ptr, type, member) ({ \\
	void *__mptr = (void *)(ptr); \\
	static_assert(__same_type(*(ptr), ((type *)0)->member)); \\
	((type *)(__mptr - offsetof(type, member))); })
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define SET_OP(op, fn) .op = fn
"""


class _NoStore:
    def load(self, name):
        return {}

    def save(self, name, data):
        pass


def test_member_named_by_a_macro_argument(tmp_path):
    (tmp_path / "a.h").write_text(HEADER)
    g = types.SimpleNamespace(pre=Prefilter(_NoStore(), str(tmp_path)), root=str(tmp_path), _member_params={})
    pairs = [("INNER", 1), ("INNER", 0), ("OUTER", 1), ("VA", 1), ("NAMED_VA", 1), ("SELF", 1),
             ("PLAIN", 1), ("PASTE", 1), ("UNDEFINED", 0), ("container_of", 2), ("list_entry", 2),
             ("SET_OP", 0)]
    got = {p: MC._member_params(g, [p])[p] for p in pairs}
    # asked all at once, the answers are the same
    g._member_params = {}
    assert MC._member_params(g, pairs) == got
    assert got == {("INNER", 1): True, ("INNER", 0): False, ("OUTER", 1): True, ("VA", 1): True,
                   ("NAMED_VA", 1): True, ("SELF", 1): False, ("PLAIN", 1): False,
                   ("PASTE", 1): False, ("UNDEFINED", 0): False,
                   # an offset, a type check and a store name the member but never call it
                   ("container_of", 2): False, ("list_entry", 2): False, ("SET_OP", 0): False}


def test_a_declaration_that_defines_its_struct():
    text = "static struct fb_hwswitch {\n\tint (*detect)(void);\n} *fbhw;\n\nvoid f(void)\n{\n\tfbhw->detect();\n}\n"
    assert M.var_type(text, "fbhw", text.index("fbhw->")) == "fb_hwswitch"
    assert M.var_type(text, "fbhw2", text.index("fbhw->")) is None
