"""Offline unit tests: form naming from spatch's construct records, C text helpers."""

from atomic_janitor import ctext
from atomic_janitor.scan import forms


def rec(kind, **kw):
    return dict(kind=kind, **kw)


def test_gfp_ternary_and_if_else():
    assert forms.classify([rec("ternary", cond="in_atomic ( )", then="GFP_ATOMIC", other="GFP_KERNEL")],
                          called="in_atomic")[0] == "gfp-select"
    assert forms.classify([rec("if", cond="in_atomic ( )", then="flags = GFP_ATOMIC ;",
                               other="flags = GFP_KERNEL ;")], called="in_atomic")[0] == "gfp-select"


def test_polarity_decides_bail_out_versus_sleep_guard():
    bail = rec("if", cond="in_atomic ( )", then="return - EBUSY ;", other=None)
    guard = rec("if", cond="! in_atomic ( )", then="msleep ( 1 ) ;", other=None)
    assert forms.classify([bail], called="in_atomic")[0] == "bail-out"
    assert forms.classify([guard], called="in_atomic")[0] == "sleep-guard"
    # a wrapper whose true means "may sleep" flips the reading
    inverted = rec("if", cond="drm_can_sleep ( )", then="msleep ( 1 ) ;", other=None)
    assert forms.classify([inverted], called="drm_can_sleep", atomic_when_true=False)[0] == "sleep-guard"


def test_delay_and_lock_selection():
    assert forms.classify([rec("if", cond="in_atomic ( )", then="mdelay ( 1 ) ;", other="msleep ( 1 ) ;")],
                          called="in_atomic")[0] == "delay-select"
    assert forms.classify([rec("if", cond="in_atomic ( )", then="spin_lock ( & l ) ;",
                               other="mutex_lock ( & m ) ;")], called="in_atomic")[0] == "lock-select"


def test_assertion_wins_over_a_plain_argument():
    assert forms.classify([rec("call-arg", cond="in_atomic ( )", callee="WARN_ON")],
                          called="in_atomic")[0] == "assertion"
    assert forms.classify([rec("call-arg", cond="in_atomic ( )", callee="foo")], called="in_atomic")[0] == "other"


def test_stored_answer_is_judged_by_its_use():
    recs = [rec("assign", var="na", cond="! in_atomic ( ) && ! irqs_disabled ( )"),
            rec("var-call-arg", callee="might_sleep_if", cond="loop && na"),
            rec("var-if", cond="likely ( na )", then="msleep ( 1 ) ;", other="cpu_relax ( ) ;")]
    form, detail = forms.classify(recs, called="in_atomic")
    assert form == "delay-select" and detail["variable"] == "na"


def test_pure_condition_only_for_values_built_from_predicates():
    assert forms.pure_condition("! in_atomic ( )", "in_atomic")
    assert forms.pure_condition("in_softirq ( ) ? GFP_ATOMIC : GFP_KERNEL", "in_softirq")
    assert not forms.pure_condition("kmalloc ( n , in_atomic ( ) ? GFP_ATOMIC : GFP_KERNEL )", "in_atomic")
    assert not forms.pure_condition("system_state > SYSTEM_RUNNING && irqs_disabled ( )", "irqs_disabled")


def test_blank_keeps_positions_and_drops_comments_and_strings():
    src = 'a = "in_atomic()"; /* in_atomic() */ b = in_atomic(); // in_atomic()\n'
    out = ctext.blank(src)
    assert len(out) == len(src)
    assert out.count("in_atomic") == 1
    calls = ctext.textual_calls(out, ["in_atomic"])
    assert calls == [(1, src.index("b = in_atomic") + 4, "in_atomic")]
    inc = '#include <rtw_xmit.h>\n# include "rtw_xmit.h"\nrtw_xmit(a);\n'
    assert ctext.blank(inc) == "#include " + " " * 12 + "\n# include " + " " * 12 + "\nrtw_xmit(a);\n"


def test_textual_calls_skip_members_definitions_and_params():
    src = "int (*in_atomic)(void);\nx = ops->in_atomic();\nstatic bool in_atomic(void)\n#define in_atomic() 0\n"
    assert ctext.textual_calls(ctext.blank(src), ["in_atomic"]) == []


def test_config_at_skips_include_guards_and_tracks_else():
    lines = ["#ifndef FOO_H\n", "#define FOO_H\n", "#ifdef CONFIG_A\n", "x\n", "#else\n", "y\n", "#endif\n", "z\n"]
    assert ctext.config_at(lines, 4) == ["defined(CONFIG_A)"]
    assert ctext.config_at(lines, 6) == ["!(defined(CONFIG_A))"]
    assert ctext.config_at(lines, 8) == []


def test_never_compiled_spans_are_if_0_and_what_follows_if_1():
    src = ["a\n", "#if 0\n", "d1\n", "#ifdef X\n", "d2\n", "#endif\n", "#else\n", "l1\n", "#endif\n",
           "#if 1\n", "l2\n", "#elif defined(Y)\n", "d3\n", "#else\n", "d4\n", "#endif\n",
           "#ifdef Z\n", "l3\n", "#elif (0)\n", "d5\n", "#else\n", "l4\n", "#endif\n"]
    spans = ctext.never_compiled(src)
    dead = {src[i - 1].strip() for a, b in spans for i in range(a, b + 1)}
    assert {d for d in dead if not d.startswith("#")} == {"d1", "d2", "d3", "d4", "d5"}
    assert ctext.never_compiled(["#ifdef X\n", "a\n", "#else\n", "b\n", "#endif\n"]) == []


def test_normalise_reads_like_c():
    assert ctext.normalise("( in_atomic ( ) || irqs_disabled ( ) )") == "(in_atomic() || irqs_disabled())"
    assert ctext.strip_parens("(in_atomic() || irqs_disabled())") == "in_atomic() || irqs_disabled()"
    assert ctext.strip_parens("(a) && (b)") == "(a) && (b)"
