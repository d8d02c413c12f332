"""Unit tests of the pieces: condition polarity, kernel-doc, subject prefixes, wrapping."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

from atomic_janitor.patches import fix, maintainers, message  # noqa: E402


def _f(expr, called="in_atomic", true_means="atomic"):
    return {"expression": expr, "called": called, "form_detail": {"true_means": true_means}}


@pytest.mark.parametrize("expr,called,atomic", [
    ("in_atomic()", "in_atomic", True),
    ("!in_atomic()", "in_atomic", False),
    ("in_atomic() || irqs_disabled()", "in_atomic", True),
    ("!in_atomic() && !irqs_disabled()", "in_atomic", False),
    ("drm_can_sleep()", "drm_can_sleep", False),
    ("!drm_can_sleep()", "drm_can_sleep", True),
    ("(in_interrupt())", "in_interrupt", True),
])
def test_polarity(expr, called, atomic):
    assert fix.atomic_when_true(_f(expr, called)) is atomic


@pytest.mark.parametrize("expr", ["in_atomic() && irqs_disabled()", "in_atomic() || foo", "x > 3"])
def test_polarity_refuses_what_it_cannot_tell(expr):
    with pytest.raises(fix.Skip):
        fix.atomic_when_true(_f(expr))


def test_kernel_doc_param_added_after_last_param_once():
    src = ("/**\n * foo - do it\n * @a: first\n * @b: second, which goes on\n *\tfor two lines\n"
           " *\n * Return: 0\n */\nint foo(int a, int b)\n")
    out = fix.add_kernel_doc_param(src, "foo", "gfp", "GFP flags")
    assert out.split("\n")[5] == " * @gfp: GFP flags"
    assert fix.add_kernel_doc_param(out, "foo", "gfp", "GFP flags") == out
    other = src.replace("foo - do it", "bar - other")
    assert fix.add_kernel_doc_param(other, "foo", "gfp", "x") == other


@pytest.mark.parametrize("path,prefix", [
    ("drivers/gpu/drm/radeon/atom.c", "drm/radeon"),
    ("drivers/gpu/drm/drm_flip_work.c", "drm/drm_flip_work"),
    ("drivers/net/wireless/zydas/zd1211rw/zd_usb.c", "wifi: zd1211rw"),
    ("drivers/i2c/busses/i2c-pxa.c", "i2c: pxa"),
    ("drivers/xen/grant-table.c", "xen/grant-table"),
    ("drivers/scsi/libsas/sas_event.c", "scsi: libsas"),
    ("sound/soc/codecs/wm8994.c", "ASoC: codecs"),
])
def test_prefix_from_path(path, prefix):
    assert maintainers._from_path(path) == prefix


def test_why_is_fitted_to_the_predicate():
    a = message.why({"in_atomic"}, ["in_atomic"])
    i = message.why({"in_interrupt"}, ["in_interrupt"])
    assert "CONFIG_PREEMPT_COUNT" in a and "CONFIG_PREEMPT_COUNT" not in i
    assert "never sees a held spinlock" in i
    w = message.why({"in_atomic"}, ["drm_can_sleep"])
    assert w.startswith("drm_can_sleep() is a wrapper around in_atomic()")


def test_evidence_wrapped_at_75():
    lines = message.evidence_lines([{"evidence": [{"file": "drivers/a/b.c", "line": 3, "function": "f",
                                                    "fact": "word " * 40}]}])
    assert all(len(l) <= 75 for l in "\n".join(lines).split("\n"))
