"""Function-head macros (analysis/funchead.py): which #defines are read as a function's head."""

from atomic_janitor.analysis import funchead


def _lines(text):
    return [l + "\n" for l in text.splitlines()]


def test_a_head_with_storage_class_and_pointer_return():
    assert funchead.head_of("static void * fxh_probe(struct usb_device *usb, unsigned int ifnum)") == \
        ("fxh_probe", True, "struct usb_device *usb, unsigned int ifnum")
    assert funchead.head_of("int fxh_cb(void (*fn)(int), void *data)") == ("fxh_cb", False, "void (*fn)(int), void *data")


def test_a_call_a_prototype_or_a_body_is_no_head():
    assert funchead.head_of("fxh_cb(data)") is None              # a call: no type before the name
    assert funchead.head_of("return fxh_cb(data)") is None
    assert funchead.head_of("static void fxh_cb(void *data);") is None
    assert funchead.head_of("static void fxh_cb(void *data) { }") is None
    assert funchead.head_of("do { fxh_cb(data); } while (0)") is None


def test_every_definition_must_name_the_same_function():
    same = _lines("#if A\n#define H() static int f(void *d)\n#else\n#define H() static void f(struct w *d)\n#endif\n")
    assert funchead.macros(same) == {"H": ("f", True, "", [2, 4])}
    split = _lines("#if A\n#define H() static void f(void *d)\n#else\n#define H() static void g(void *d)\n#endif\n")
    assert funchead.macros(split) == {}
    # a definition of another shape (a statement) makes the name no head macro
    mixed = _lines("#if A\n#define H() static void f(void *d)\n#else\n#define H() f(0)\n#endif\n")
    assert funchead.macros(mixed) == {}


def test_a_macro_with_parameters_or_a_continued_line_is_not_read():
    assert funchead.macros(_lines("#define H(n) static void n(void *d)\n")) == {}
    assert funchead.macros(_lines("#define H() static void \\\n\tf(void *d)\n")) == {}


def test_renamed_only_where_spatch_took_the_macro_for_the_function():
    lines = _lines("#define H() static void f(void *d)\nH()\n{\n}\n")
    assert funchead.renames(lines, {"H"}) == {"H": ("f", True, "void *d", [1])}
    assert funchead.renames(lines, {"g"}) == {}
    assert funchead.renames(lines, {"H", "f"}) == {}             # f also defined under its own name
