"""The function around an unparsed call, read from the text (analysis/textual.py)."""

from atomic_janitor.analysis import textual as T
from atomic_janitor.analysis.facts import FileFacts

SRC = """static int
fx_old(struct fx *d,
       int n)
{
#ifdef A
	if (n) {
#endif
#ifdef B
	if (!n) {
#endif
		fx_site(d);
	}
	return 0;
}

int fx_new(struct fx *d) { fx_site(d); }

static const struct fx_ops ops =
{
	.x = fx_site(0),
};

void fx_loop(struct fx *d)
{
	fx_locked(d, i)
		fx_site(d);
	list_for_each_entry(p, &d->list, node) {
		fx_site(d);
	}
}
"""


def ff():
    return FileFacts("drivers/fx/fx.c", SRC.splitlines(True), [])


def test_a_kernel_style_function_is_found_with_its_head_over_several_lines():
    tf = T.enclosing(ff(), 11)
    assert (tf.name, tf.line, tf.static) == ("fx_old", 2, True)
    assert "fx_site(d);" in tf.body and "#ifdef" not in tf.body


def test_what_the_text_does_not_settle_is_no_function():
    assert T.enclosing(ff(), 16) is None       # head and body on one line: not kernel style
    assert T.enclosing(ff(), 20) is None       # an initialiser, not a function body
    assert T.enclosing(ff(), 14) is None       # the closing brace itself


def test_loop_headers_spatch_would_not_read_as_iterators():
    tf = T.enclosing(ff(), 27)
    assert tf.name == "fx_loop"
    assert T.loop_headers(tf.body) == {"fx_locked"}


def test_member_uses_read_a_logical_and_as_a_test_not_an_address():
    from atomic_janitor.analysis import members as M
    text = ("if (e->type < LAST && wl->handler[e->type])\n\twl->handler[e->type](wl);\n"
            "p = &wl->handler;\nif (a || wl->handler[1])\n\tb();\n")
    assert [k for _o, _b, k in M.uses(text, "handler")] == ["test", "call", "address", "test"]


def test_member_uses_read_a_comparison_either_way_round_as_a_test():
    """`NULL == adapter->hal_func.init_recv_priv` (Realtek's hal_intf.c) looks at the pointer;
    `f = p->fn` reads it into a variable, which may call it anywhere."""
    from atomic_janitor.analysis import members as M
    text = "if (NULL == p->hal.fn) x(); if (0 != p->fn) y(); if (p->fn == q) z(); f = p->fn;"
    assert [k for _o, _b, k in M.uses(text, "fn")] == ["test", "test", "test", "use"]


LOCAL_READ = """void rd(struct a *adapter)
{
	u32 (*_read)(struct h *h, u32 addr);

	_read = adapter->io_ops._read;
	if (_read)
		_read(adapter->h, 1);
CALL}
"""


def _local(extra):
    from atomic_janitor.analysis import facts, member_calls as MC, members as M
    text = LOCAL_READ.replace("CALL", extra)
    line = text.count("\n", 0, text.index("_read(adapter")) + 1
    ff = facts.FileFacts("x.c", text.splitlines(True), [
        {"kind": "call", "line": line, "col": 2, "callee": "_read", "element": "rd"}])
    (off, base, kind), = M.uses(ff.text, "_read")
    return MC._local_calls(ff, off, "_read", base)


def test_a_member_read_into_a_local_that_is_only_called_is_a_call():
    """member_calls._local_calls: Realtek's `_read_port = pintfhdl->io_ops._read_port;`."""
    calls = _local("")
    assert [(c.line, c.callee) for c in calls] == [(7, "_read")]
    # a call written `(*_read)(...)` is no declaration, and not a recorded call: unknown
    assert _local("\tspin_lock(&l);\n\t(*_read)(adapter->h, 2);\n\tspin_unlock(&l);\n") is None
    # passed on, or stored again
    assert _local("\tdefer(_read);\n") is None
    assert _local("\t_read = other;\n") is None


def _closed(body):
    from atomic_janitor.analysis.graph import PRIMITIVES
    src = "static void fx_f(struct fx *d)\n{\n" + body + "\tfx_site(d);\n}\n"
    f = FileFacts("drivers/fx/fx.c", src.splitlines(True), [])
    return T.closed_regions(T.enclosing(f, src.count("\n") - 1), PRIMITIVES)


def test_regions_taken_and_dropped_in_straight_code():
    assert _closed("\tspin_lock_bh(&d->lock);\n\td->n++;\n\tspin_unlock_bh(&d->lock);\n") == [(3, 5)]
    # nested, in a braced block, irqsave with its flags
    assert _closed("\tif (d->n) {\n\t\tspin_lock_irqsave(&d->a, fl);\n\t\trcu_read_lock();\n"
                   "\t\trcu_read_unlock();\n\t\tspin_unlock_irqrestore(&d->a, fl);\n\t}\n") == [(5, 6), (4, 7)]
    assert _closed("\td->n++;\n") == []


def test_regions_the_text_does_not_settle():
    for body in ("\tspin_lock(&d->a);\n\tspin_unlock(&d->b);\n",              # another lock
                 "\tspin_lock_bh(&d->a);\n\tspin_unlock(&d->a);\n",           # BHs left off
                 "\tspin_lock(&d->a);\n\tif (!d->n)\n\t\treturn;\n\tspin_unlock(&d->a);\n",
                 "\tspin_lock(&d->a);\n\tif (d->n)\n\t\tspin_unlock(&d->a);\n",
                 "\tspin_lock(&d->a);\n#ifdef A\n\td->n++;\n#endif\n\tspin_unlock(&d->a);\n",
                 "\tspin_lock(&d->a);\n\tif (d->n) {\n\tspin_unlock(&d->a);\n\t}\n",
                 "\tspin_lock(&d->a);\n",                                      # still held
                 "\tspin_unlock(&d->a);\n",                                    # the caller's
                 "\tif (spin_trylock(&d->a))\n\t\tspin_unlock(&d->a);\n",
                 "\tdefer(spin_lock, &d->a);\n"):                              # named, not called
        assert _closed(body) is None, body
