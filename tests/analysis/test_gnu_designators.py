"""GCC's old designators (`probe: fn`) name a member; labels, cases and ternaries do not."""

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
