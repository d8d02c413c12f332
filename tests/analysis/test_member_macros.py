"""A function-like macro that calls a member named by its argument hides the call from a
textual search for `->member(`: such macros are found through the macros they pass their
arguments to, and a variadic argument may land on any later parameter."""

import types

from atomic_janitor.analysis import member_calls as MC

HEADER = """\
#define INNER(x, op) ((x)->ops->op(x))
#define OUTER(x, op) INNER(x, op)
#define VA(x, ...) INNER(x, __VA_ARGS__)
#define NAMED_VA(x, args...) INNER(x, ##args)
#define SELF(x, op) SELF(x, op)
#define PLAIN(x, y) foo(x, y)
#define PASTE(x, op) ((x)->ops->op##_cb(x))
"""


class _Words:
    def __init__(self, root, files):
        self.root, self.files = root, files

    def files_with(self, words):
        return [f for f in self.files if any(w in (self.root / f).read_text() for w in words)]


def test_member_named_by_a_macro_argument(tmp_path):
    (tmp_path / "a.h").write_text(HEADER)
    g = types.SimpleNamespace(pre=_Words(tmp_path, ["a.h"]), root=str(tmp_path), _member_params={})
    got = {(n, i): MC._member_param(g, n, i) for n, i in
           [("INNER", 1), ("INNER", 0), ("OUTER", 1), ("VA", 1), ("NAMED_VA", 1), ("SELF", 1),
            ("PLAIN", 1), ("PASTE", 1), ("UNDEFINED", 0)]}
    assert got == {("INNER", 1): True, ("INNER", 0): False, ("OUTER", 1): True, ("VA", 1): True,
                   ("NAMED_VA", 1): True, ("SELF", 1): False, ("PLAIN", 1): False,
                   ("PASTE", 1): False, ("UNDEFINED", 0): False}
