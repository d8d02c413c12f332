"""GCC's old designators (`probe: fn`) and macros of one designated element name a member;
labels, cases and ternaries do not."""

from atomic_janitor.analysis import facts
from atomic_janitor.analysis.facts import FileFacts


def _at(text, name):
    ff = FileFacts("drivers/x/x.c", text.splitlines(True), [])
    return ff.text, ff.text.index(name)


def test_a_member_after_the_brace_or_a_comma_even_past_a_directive():
    text, i = _at("static struct usb_driver d = {\n\tname: \"x\",\n#ifdef A\n\tprobe: fn_probe,\n#endif\n};\n",
                  "fn_probe")
    assert facts._initialiser(text, i) == ("usb_driver", "probe")
    assert facts.positional_slot(text, i) is None
    text, i = _at("static struct usb_driver d = { probe: &fn_probe };\n", "fn_probe")
    assert facts._initialiser(text, i) == ("usb_driver", "probe")


def test_labels_cases_and_ternaries_are_not_designators():
    for src in ("void f(void)\n{\nout:\n\tfn_cb;\n}\n",
                "void f(int x)\n{\n\tswitch (x) {\n\tdefault: fn_cb;\n\t}\n}\n",
                "void f(int x)\n{\n\tswitch (x) {\n\tcase X: fn_cb;\n\t}\n}\n",
                "static struct ops o[] = {\n\t{ c ? a : fn_cb },\n};\n"):
        text, i = _at(src, "fn_cb")
        assert facts._gnu_field(text, i) is None, src
    text, i = _at("static struct ops o[] = {\n\t{ c ? a : fn_cb },\n};\n", "fn_cb")
    assert facts._initialiser(text, i) is None
    assert facts._positional(text, i) == ("ops", 0)


def test_a_macro_of_one_designated_element_names_the_member_of_its_argument():
    from atomic_janitor.analysis import macro_args
    gen = [("GEN", "cmd, callback_func", "{.cmd_hdl = cmd, .callback = callback_func},")]
    assert macro_args.element_member(gen, 0) == "cmd_hdl"
    assert macro_args.element_member(gen, 1) == "callback"
    assert macro_args.element_member([("B", "fn", "{.a = fn, .b = (void *)fn},")], 0) is None
    assert macro_args.element_member([("W", "fn", "{.a = wrap(fn)},")], 0) is None
    assert macro_args.element_member(gen + [("GEN", "cmd, cb", "{.other = cmd},")], 0) is None


def test_the_array_whose_element_a_macro_use_is():
    src = "struct rtw_cmd wlancmds[] = {\n\tGEN(a_hdl, NULL) /* A */\n\tGEN(b_hdl, NULL)\n};\n"
    text, i = _at(src, "b_hdl")
    assert facts.array_element_type(text, facts.call_around(text, i)[2]) == "rtw_cmd"
    # a single struct: the macro's braces would initialise a member of it
    text, i = _at("struct rtw_cmd one = {\n\tGEN(b_hdl, NULL)\n};\n", "b_hdl")
    assert facts.array_element_type(text, facts.call_around(text, i)[2]) is None
    # inside a function: no initialiser
    text, i = _at("void f(void)\n{\n\tGEN(b_hdl, NULL);\n}\n", "b_hdl")
    assert facts.array_element_type(text, facts.call_around(text, i)[2]) is None
