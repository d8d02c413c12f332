"""tables.py: which stores are into a static table of an untagged struct, and when every
call through it is known (the graph's fixture tests, drivers/fxt, run the whole path)."""

from atomic_janitor.analysis import tables
from atomic_janitor.analysis.facts import FileFacts

TABLE = """static struct {
	int id;
	void (*func)(int);
} tbl[] = {
	{ 1, fn_a },
	{ .id = 2, .func = fn_b },
};
"""


def ff_of(text):
    return FileFacts("drivers/x/x.c", text.splitlines(True), [])


def table_at(ff, name):
    return tables.stored_in(ff.text, ff.text.index(name + " "))


def test_positional_and_designated_values_name_their_member():
    ff = ff_of(TABLE)
    for name in ("fn_a", "fn_b"):
        t = table_at(ff, name)
        assert (t.var, t.field) == ("tbl", "func")


def test_a_tagged_or_non_static_table_is_not_one():
    for head in ("static struct tab {", "struct {"):
        ff = ff_of(TABLE.replace("static struct {", head, 1))
        assert table_at(ff, "fn_a") is None


def test_calls_sizes_and_other_members_are_accounted_for():
    ff = ff_of(TABLE + """void run(int i)
{
	if (i < ARRAY_SIZE(tbl) && tbl[i].id && tbl[i].func)
		tbl[i].func(tbl[i].id);
	tbl[0].func = 0;
}
""")
    offs, why = tables.calls(ff, table_at(ff, "fn_a"))
    assert why is None and len(offs) == 1 and ff.line_of(offs[0]) == 11


def test_an_escape_of_the_table_or_the_pointer_leaves_the_callers_unknown():
    for use, why in (("use(&tbl[i]);", "the table is passed on"), ("p = tbl;", "the table is passed on"),
                     ("p = tbl[i].func;", "read at"), ("#define RUN(i) tbl[i].func(i)", "used in a macro")):
        ff = ff_of(TABLE + "void run(int i)\n{\n\ttbl[i].func(i);\n\t" + use + "\n}\n")
        offs, got = tables.calls(ff, table_at(ff, "fn_a"))
        assert offs is None and why in got, (use, got)


def test_no_call_is_no_proof():
    ff = ff_of(TABLE)
    offs, why = tables.calls(ff, table_at(ff, "fn_a"))
    assert offs is None and "no call through tbl[].func" in why


def test_an_untagged_typedef_is_a_type_of_its_own():
    """members.typedefs: the untagged struct goes by its first typedef name, pointer alias
    included; a tagged one by its tag, as before."""
    from atomic_janitor.analysis import members as M
    text = ("typedef struct {\n\tvoid *(*attach)(int);\n\tvoid (*detach)(void *);\n} drv_t, *pdrv_t;\n"
            "typedef struct tagged { int a; } tagged_t;\n")
    assert M.typedefs(text) == {"drv_t": "typedef drv_t", "pdrv_t": "typedef drv_t", "tagged_t": "tagged"}
    assert M.member_names(M.struct_body(text, "typedef drv_t")) == ["attach", "detach"]
    assert M.struct_body(text, "typedef pdrv_t") is None        # named by its first name only
    assert M.typedefs("typedef structure_t other_t;") == {}      # a type named struct..., no struct


def test_a_nested_member_initialiser_is_not_read_as_an_array_element():
    """`{ 1, { fn } }` of one struct: fn is in the nested member, not the outer's first."""
    ff = ff_of("static struct {\n\tvoid (*a)(void);\n\tstruct { void (*f)(void); } s;\n} v = { 0, { fn_c } };\n")
    assert table_at(ff, "fn_c") is None
    ff = ff_of("static struct {\n\tint id;\n\tvoid (*func)(int);\n} tbl = { 1, fn_a };\n")
    t = table_at(ff, "fn_a")
    assert (t.var, t.field) == ("tbl", "func")                  # one struct, positional
