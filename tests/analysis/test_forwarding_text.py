"""The text readers behind parameter forwarding and static variables (forwarding.py,
static_vars.py): what they accept, and the near misses they must refuse."""

from atomic_janitor.analysis import forwarding, static_vars


def test_parameters_split_at_top_level_commas_and_named():
    params = forwarding.split_params("struct net_device *dev, void (*fn)(void *, int), void *arg, int")
    assert params == ["struct net_device *dev", "void (*fn)(void *, int)", "void *arg", "int"]
    assert [forwarding.param_name(p) for p in params] == ["dev", "fn", "arg", None]
    assert forwarding.param_name("void") is None
    assert forwarding.param_name("fxw_cb_t cb[]") == "cb"


def test_definitions_are_heads_followed_by_a_body():
    text = ("int reg(void *cb);\n"                       # a prototype
            "#define GEN(size, cmd) {size, cmd},\n"     # a macro whose body is an initialiser
            "static int\nreg(void *cb)\n{\n\treturn 0;\n}\n"
            "void f(void)\n{\n\tif (reg(x)) {\n\t}\n}\n")   # a call followed by a block
    defs = forwarding.definitions(text, "reg")
    assert [(text[s:s + 3], static) for s, _e, static in defs] == [("reg", True)]
    assert forwarding.definitions(text, "GEN") == []


def test_a_store_into_a_variable_is_a_statement_of_its_own():
    for text, var in [("{\n\tsaved = fn;\n", "saved"), ("\tif (i < 2)\n\t\thooks[i] = fn;\n", "hooks"),
                      ("\telse hooks[0] = fn;\n", "hooks")]:
        text = text.rstrip("\n").rstrip(";") + ";"
        off = text.rindex("fn")
        assert static_vars.stored_in(text, off, 2) == var, text
    for text in ["\tx = a == fn;", "\tp->cb = fn;", "\tsaved = fn + 1;", "\treturn saved = fn;"]:
        assert static_vars.stored_in(text, text.rindex("fn"), 2) is None, text


def test_only_one_static_file_scope_declaration_counts():
    assert static_vars.declaration("static cb_t hooks[2];\nvoid f(void)\n{\n}\n", "hooks")[0] is not None
    assert static_vars.declaration("cb_t hooks[2];\n", "hooks") == (None, "hooks is not static: other files may "
                                                                         "read it")
    twice = "#ifdef A\nstatic cb_t saved;\n#else\nstatic cb2_t saved;\n#endif\n"
    assert static_vars.declaration(twice, "saved") == (None, "saved is declared 2 times at file scope")
    assert static_vars.declaration("void f(void)\n{\n\tstatic cb_t saved;\n}\n", "saved")[0] is None


def test_a_head_with_an_attribute_macro_is_not_skipped():
    """A definition the reader cannot follow would be a definition missed: None, never []."""
    text = "static void w(void *fn) __must_hold(&l)\n{\n\tsaved = fn;\n}\n"
    assert forwarding.definitions(text, "w") is None


def test_a_local_of_the_same_name_is_not_the_static_variable():
    text = ("static cb_t saved;\n"
            "static void keep(cb_t fn)\n{\n\tsaved = fn;\n}\n"
            "static void other(cb_t fn)\n{\n\tcb_t saved;\n\n\tsaved = fn;\n\tsaved(0);\n}\n")
    decl, _why = static_vars.declaration(text, "saved")
    first, second = [i for i in range(len(text)) if text.startswith("saved = fn", i)]
    assert not static_vars.shadowed(text, first + 8, "saved", decl)
    assert static_vars.shadowed(text, second + 8, "saved", decl)
    param = "static cb_t saved;\nstatic void keep(cb_t saved)\n{\n\tsaved = fn;\n}\n"
    assert static_vars.shadowed(param, param.rindex("fn"), "saved", static_vars.declaration(param, "saved")[0])
    assert static_vars.declaration(param, "saved")[0] == param.index("saved")
    listed = "static cb_t saved;\nstatic void keep(cb_t fn)\n{\n\tcb_t a, saved;\n\n\tsaved = fn;\n}\n"
    assert static_vars.shadowed(listed, listed.rindex("fn"), "saved", static_vars.declaration(listed, "saved")[0])
