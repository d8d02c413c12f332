"""Unit tests of the textual half of fact collection (no spatch, no kernel tree)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

from atomic_janitor.analysis import facts  # noqa: E402
from atomic_janitor.analysis.graph import _driver_root  # noqa: E402


def ff_of(src, records=()):
    lines = [l + "\n" for l in src.split("\n")]
    return facts.FileFacts("x.c", lines, list(records))


def mention(ff, name, nth=0):
    m = [x for x in facts.textual_mentions(ff, name)][nth]
    return facts.classify_mention(ff, name, m[0], m[1], m[2], ff.defs)


def test_initialiser_struct_type_and_field():
    ff = ff_of("static const struct net_device_ops ops = {\n\t.ndo_open = foo_open,\n\t.ndo_start_xmit = foo_xmit,\n};")
    assert mention(ff, "foo_xmit") == ("init", ("net_device_ops", "ndo_start_xmit"))


def test_array_of_structs():
    ff = ff_of("static struct irq_chip chips[] = {\n\t{ .irq_mask = foo_mask },\n};")
    assert mention(ff, "foo_mask") == ("init", ("irq_chip", "irq_mask"))


def test_runtime_assignment_is_not_an_initialiser():
    ff = ff_of("void f(struct d *d)\n{\n\td->cb = foo_cb;\n}")
    what, detail = mention(ff, "foo_cb")
    assert what == "assign" and detail[0] == "cb"


def test_call_argument_index():
    ff = ff_of("int f(void)\n{\n\treturn request_threaded_irq(1, foo_hard, foo_thread, 0, \"x\", 0);\n}")
    assert mention(ff, "foo_hard") == ("call-arg", ("request_threaded_irq", 1))
    assert mention(ff, "foo_thread") == ("call-arg", ("request_threaded_irq", 2))


def _arg_of(src, name="fn"):
    return facts._enclosing_call_arg(src, src.rindex(name))


def test_call_argument_index_across_if_branches():
    """An argument list split by #if: the index in the branches compiled with the name, and
    None when the groups before it give different counts (an #if with no #else is one)."""
    cast = "tasklet_init(&t,\n#if A\n (void (*)(unsigned long))fn,\n#else\n (void *)fn,\n#endif\n 0);"
    assert _arg_of(cast) == ("tasklet_init", 1)
    assert facts._enclosing_call_arg(cast, cast.index("fn")) == ("tasklet_init", 1)
    assert _arg_of("f(a,\n#if A\n b,\n#else\n c,\n#endif\n fn);") == ("f", 2)
    assert _arg_of("f(a,\n#if A\n b,\n#else\n c, d,\n#endif\n fn);") == ("f", None)
    assert _arg_of("f(a,\n#ifdef A\n b,\n#endif\n fn);") == ("f", None)
    assert _arg_of("f(a,\n#if A\n b,\n#elif B\n c,\n#endif\n fn);") == ("f", None)
    # nested groups: (A && B) gives 3 arguments before it, (A && !B) 2
    assert _arg_of("f(a,\n#if A\n#if B\n b,\n#endif\n c,\n#else\n d, e,\n#endif\n fn);") == ("f", None)


def test_call_across_if_branches_is_the_one_compiled_with_the_name():
    assert _arg_of("x;\n#if A\n f(x, fn);\n#else\n g(fn);\n#endif\n") == ("g", 0)
    # the call itself differs between the branches: no call can be named
    assert _arg_of("#if A\n f(x,\n#else\n g(y,\n#endif\n fn);") == (None, None)


def test_an_element_of_a_long_table_after_a_directive_line():
    """Broadcom's wl_vendor_cmds[]: 1260 lines, its elements between #ifdef lines, each
    opening with an unnamed `{ .vendor_id, .subcmd }`."""
    pad = "\t{ { .vendor_id = 1, .subcmd = 2 }, .flags = 0, .doit = other_doit },\n" * 600
    ff = ff_of("static struct wiphy_vendor_command cmds [] = {\n" + pad +
               "#ifdef WL_NAN\n\t{\n\t\t{\n\t\t\t.vendor_id = 1,\n\t\t\t.subcmd = 3\n\t\t},\n"
               "\t\t.flags = 0,\n\t\t.doit = nan_doit,\n\t},\n#endif /* WL_NAN */\n};")
    assert mention(ff, "nan_doit") == ("init", ("wiphy_vendor_command", "doit"))


def test_a_head_whose_name_a_macro_wraps_is_no_argument():
    """`void * BCMFASTPATH(linux_pktget)(...)` defines or declares it; in an expression the
    same text passes the name to the macro."""
    assert mention(ff_of("extern int BCMFASTPATH(fx_xmit)(struct sk_buff *skb);"), "fx_xmit") == ("decl", None)
    assert mention(ff_of("void * BCMFASTPATH(fx_get)(int len)\n{\n}"), "fx_get") == ("decl", None)
    assert mention(ff_of("int f(void)\n{\n\treturn BCMFASTPATH(fx_get)(1);\n}"), "fx_get") == \
        ("call-arg", ("BCMFASTPATH", 0))


def test_a_call_after_a_directive_line_is_no_declaration():
    """The token before `f(` is `X` of `#ifdef X`: not a type, so not a declarator."""
    assert mention(ff_of("void g(void)\n{\n#ifdef CONFIG_X\n\tfx_init(1);\n#endif\n}"), "fx_init") == \
        ("unseen-call", None)
    assert mention(ff_of("int\n#ifdef CONFIG_X\nfx_init(int a)\n#else\nfx_init(void)\n#endif\n{\n}"), "fx_init") == \
        ("decl", None)
    assert mention(ff_of("int\n#ifdef CONFIG_X\nfx_init(int a)\n#else\nfx_init(void)\n#endif\n{\n}"), "fx_init", 1) == \
        ("decl", None)


def test_export_and_prototype_and_comment():
    ff = ff_of("/* foo_x( is a comment */\nint foo_x(int a);\nEXPORT_SYMBOL_GPL(foo_x);")
    kinds = [facts.classify_mention(ff, "foo_x", o, l, k, ff.defs)[0] for o, l, k in facts.textual_mentions(ff, "foo_x")]
    assert kinds == ["decl", "export"]


def test_call_in_macro_body():
    ff = ff_of("#define FOO_ALLOC(n) \\\n\tfoo_alloc(n, 0)\n")
    assert mention(ff, "foo_alloc") == ("macro-call", "FOO_ALLOC")


def test_guard_scope_is_lexical():
    src = "void f(void)\n{\n\t{\n\t\tguard(spinlock)(&l);\n\t\ta();\n\t}\n\tb();\n}"
    recs = [{"kind": "call", "line": 5, "col": 2, "callee": "a", "element": "f"},
            {"kind": "call", "line": 7, "col": 1, "callee": "b", "element": "f"}]
    ff = ff_of(src, recs)
    assert ff.calls[(5, 2)].regions == [("guard(spinlock)", 4)]
    assert ff.calls[(7, 1)].regions == []


def test_mutex_guard_is_not_atomic():
    src = "void f(void)\n{\n\tguard(mutex)(&m);\n\ta();\n}"
    ff = ff_of(src, [{"kind": "call", "line": 4, "col": 1, "callee": "a", "element": "f"}])
    assert ff.calls[(4, 1)].regions == []


def test_driver_root():
    assert _driver_root("drivers/net/wireless/foo/core.c", "kernel") == "drivers/net/wireless"
    assert _driver_root("drivers/xen/grant-table.c", "kernel") == "drivers/xen"
    assert _driver_root("core/rtw_cmd.c", "module-dir") == ""


def test_member_of_the_same_name_is_no_mention_of_the_function():
    # Realtek usb_intf.c: a static usb_intf_start() beside hal->usb_intf_start = _TRUE
    ff = ff_of("static void usb_intf_start(struct a *a)\n{\n\thal->usb_intf_start = 1;\n"
               "\tx.usb_intf_start = 0;\n\tif (p -> usb_intf_start) a();\n\tb = c > usb_intf_start;\n}")
    assert [mention(ff, "usb_intf_start", k)[0] for k in range(1, 5)] == ["not-function"] * 3 + ["other"]


def test_an_array_element_by_index_is_no_struct_member():
    # aic8800 rwnx_msg_rx.c: an array of a function pointer typedef, indexed by message id
    ff = ff_of("static msg_cb_fct mm_hdlrs[MM_MAX] = {\n\t[MSG_I(MM_A)] = fx_a,\n\t[MSG_I(MM_B)]  = &fx_b,\n};\n"
               "static struct fx_attr attrs[] = {\n\t{ \"a\", fx_c },\n};")
    assert mention(ff, "fx_a") == ("init-pos", ("typedef msg_cb_fct", None))
    assert mention(ff, "fx_b") == ("init-pos", ("typedef msg_cb_fct", None))
    assert mention(ff, "fx_c") == ("init-pos", ("fx_attr", 1))
    # an iw_handler array keeps its type, whatever the index (graph.py: HANDLER_ARRAYS)
    ff = ff_of("static const iw_handler fx_wx[] = {\n\t[SIOCGIWNAME - SIOCIWFIRST] = fx_get_name,\n};")
    assert mention(ff, "fx_get_name") == ("init-pos", ("typedef iw_handler", None))
