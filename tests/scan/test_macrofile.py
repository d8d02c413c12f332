"""Parse recovery: which #defines go into the generated Coccinelle macro file."""

import os
import sys

from ajtest import REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
from atomic_janitor.macrofile import attribute_macros, is_loop_header, is_name_wrapper, iterator_macros  # noqa: E402


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


def test_a_loop_header_takes_the_next_statement_as_its_body():
    assert is_loop_header("for ((wf) = intel_runtime_pm_get(rpm); (wf); intel_runtime_pm_put((rpm), (wf)), (wf) = 0)")
    assert is_loop_header("for (skb = (queue)->next; skb != (struct sk_buff *)(queue); skb = skb->next)")
    # the kernel's filtered iterators end in `if (...) {} else`
    assert is_loop_header("for (i = 0; i < n; i++) if (!(mask & BIT(i))) {} else")


def test_what_is_no_loop_header_stays_out():
    assert not is_loop_header("for (;;) { local_irq_save(flags); if (try()) break; }")   # a whole loop
    assert not is_loop_header("for (i = 0; i < n; i++) foo(i);")                        # a whole statement
    assert not is_loop_header("do { } while (0)")
    assert not is_loop_header("list_for_each_entry(pos, head, member)")                   # another iterator
    # a region around the body, which spatch would not see: the call after it stays unknown
    assert not is_loop_header("for (spin_lock(&(d)->lock), (x) = 1; (x); spin_unlock(&(d)->lock), (x) = 0)")
    assert not is_loop_header("for (rcu_read_lock(), (x) = 1; (x); rcu_read_unlock(), (x) = 0)")
    assert not is_loop_header("for (CLASS(_name, scope)(args), *done = NULL; !done; done = (void *)1)")


def test_an_iterator_is_listed_only_where_every_definition_is_one():
    got = iterator_macros([
        ("with_ref", "d, r", "for ((r) = get(d); (r); put(d, r), (r) = 0)"),
        ("two_ways", "x", "for (x = 0; x < 4; x++)"),
        ("two_ways", "x", "do_something(x)"),                   # the other #ifdef branch
        ("OBJ", None, "for (;;)"),                              # not function-like
        ("known_it", "x", "for (x = 0; x; x = 0)"),
    ], known=frozenset({"known_it"}))
    assert got == {"with_ref": "(d, r)"}


def test_a_name_wrapper_is_its_parameter_after_attributes_only():
    """Broadcom's BCMFASTPATH(_fn): the name of the function, with a section attribute."""
    assert is_name_wrapper("_fn", '__attribute__ ((__section__ (".text_fastpath." #_fn))) _fn')
    assert is_name_wrapper("_fn", '__attribute__ ((__section__ (".text_fastpath." #_fn))) \\\n'
                                  '\t__attribute__ ((optimize(3))) _fn')
    assert is_name_wrapper(" x ", "x")
    assert not is_name_wrapper("_fn", "fxv_rom_ ## _fn")         # builds another name
    assert not is_name_wrapper("_fn", "#_fn")                     # a string
    assert not is_name_wrapper("a, b", "b")                       # two parameters
    assert not is_name_wrapper(None, "x")                         # object-like
    assert not is_name_wrapper("x", "static x")                   # the head would lose `static`


def test_the_macro_file_lets_spatch_parse_what_it_could_not(tmp_path):
    """On the fixture driver: its decorator and its loop-header macro are listed, the locking
    loop header is not, and spatch's own count of unparsed definitions drops."""
    from atomic_janitor import bench, macrofile, tree
    root = os.path.join(REPO, "tests", "fixtures", "classify", "tree")
    path = macrofile.build(tree.resolve(root), str(tmp_path))
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert "#define FXV_ATTR\n" in text and "#define fxv_with_ref(dev, ref) YACFE_ITERATOR\n" in text
    assert "fxv_locked" not in text
    assert "#define FXV_FAST(_fn) _fn\n" in text and "FXV_SLOW" not in text
    files = ["drivers/fxv/fxv.c"]
    with_file, without = bench._parse_errors(root, files, path, 1), bench._parse_errors(root, files, None, 1)
    assert with_file[0] < without[0] and with_file[1] == without[1] == 0


def test_a_spatch_run_that_fails_is_not_read_as_no_errors(tmp_path):
    """A file spatch cannot process (here: absent) is counted apart, and its batch mates are
    still counted one by one."""
    from atomic_janitor import bench
    root = os.path.join(REPO, "tests", "fixtures", "classify", "tree")
    alone = bench._parse_errors(root, ["drivers/fxv/fxv.c"], None, 1)
    assert bench._parse_errors(root, ["drivers/fxv/fxv.c", "drivers/fxv/absent.c"], None, 1) == (alone[0], 1)
