"""Parse recovery: which #defines go into the generated Coccinelle macro file."""

import os
import sys

from ajtest import REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
from atomic_janitor.macrofile import attribute_macros  # noqa: E402


def test_decorators_are_listed_with_their_parameters():
    got = attribute_macros([
        '#define RTW_ATTR __attribute__((section(".rtw.text")))',
        "#define FX_HOLD(x) __attribute__((context(x, 1, 1)))",
        "#define FX_INLINE static inline __attribute__((always_inline))",
    ])
    assert got == {"RTW_ATTR": "", "FX_HOLD": "(x)", "FX_INLINE": ""}


def test_anything_that_is_not_only_attributes_stays_out():
    got = attribute_macros([
        "#define __aligned_u64 __u64 __attribute__((aligned(8)))",    # a type
        "#define FX_EMPTY",                                             # no attribute
        "#define FX_CALL(x) foo(x) __attribute__((unused))",           # code
        "#define FX_LONG __attribute__((section(\".a\"))) \\",          # continued
        "#define __must_check __attribute__((__warn_unused_result__))",  # Coccinelle knows it
    ], known=frozenset({"__must_check"}))
    assert got == {}
