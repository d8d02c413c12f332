"""The tree search answers the same with ripgrep and with grep (rg is only a speed-up)."""

import os
import shutil

import pytest

from ajtest import FIXTURES
from atomic_janitor import prefilter

TREE = os.path.join(FIXTURES, "scan", "kernel-tree")
NAMES = ["in_atomic", "in_interrupt", "irqs_disabled", "drm_can_sleep", "spin_lock", "no_such_name_here"]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed (.ci/packages installs it)")
def test_ripgrep_and_grep_agree(monkeypatch):
    monkeypatch.setattr(prefilter, "_RG", [shutil.which("rg")])
    rg_tree = prefilter._grep_names(TREE, NAMES)
    files = sorted({f for fs in rg_tree.values() for f in fs})
    rg_files = prefilter._grep_names(TREE, NAMES, files)
    monkeypatch.setattr(prefilter, "_RG", [None])
    assert prefilter._grep_names(TREE, NAMES) == rg_tree
    assert prefilter._grep_names(TREE, NAMES, files) == rg_files
    assert rg_tree["in_atomic"] and not rg_tree["no_such_name_here"]


@pytest.fixture(params=["rg", "grep"])
def backend(request, monkeypatch):
    """Each search of the tree, once by ripgrep and once by grep."""
    if request.param == "rg" and shutil.which("rg") is None:
        pytest.skip("ripgrep not installed")
    monkeypatch.setattr(prefilter, "_RG", [shutil.which("rg") if request.param == "rg" else None])
    return request.param


def test_whole_words_only(tmp_path, backend):
    (tmp_path / "a.c").write_text("int x = in_atomic_foo() + foo_in_atomic();\n")
    (tmp_path / "b.h").write_text("#define W() (in_atomic())\n")
    (tmp_path / "c.txt").write_text("in_atomic()\n")
    assert prefilter._grep_names(str(tmp_path), ["in_atomic"]) == {"in_atomic": {"b.h"}}


class _NoStore:
    def load(self, name):
        return {}

    def save(self, name, data):
        pass


def test_settle_searches_once_a_link_for_all_jobs(tmp_path, monkeypatch):
    """Two chains of lookups (a name, then a name that the first answer leads to) cost one
    tree search a link, for both jobs together, and each job gets the answer that asking
    one name at a time gives."""
    (tmp_path / "a.c").write_text("struct alpha *p; /* beta */\n")
    (tmp_path / "b.h").write_text("struct beta { int gamma; };\n")
    (tmp_path / "c.h").write_text("int gamma; int delta;\n")
    searches = []
    real = prefilter._grep_names
    monkeypatch.setattr(prefilter, "_grep_names", lambda root, names, files=None:
                        searches.append(sorted(names)) or real(root, names, files))
    pre = prefilter.Prefilter(_NoStore(), str(tmp_path))

    def chain(first, then):
        return lambda: (pre.files_with([first]), pre.files_with([then]))

    got = pre.settle({1: chain("alpha", "gamma"), 2: chain("beta", "delta")})
    assert searches == [["alpha", "beta"], ["delta", "gamma"]]
    assert got == {1: (["a.c"], ["b.h", "c.h"]), 2: (["a.c", "b.h"], ["c.h"])}
    assert pre.deferring == 0
    assert pre.settle({3: chain("alpha", "delta")}) == {3: (["a.c"], ["c.h"])}
    assert len(searches) == 2                  # answered from what was searched already


def test_function_macro_headers(tmp_path, backend):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.h").write_text("#define REG(f, d) f(d)\n  #  define\tREG2(x) (x)\n#define OBJ (1)\n")
    (tmp_path / "b.h").write_text("/* nothing */\n#define REG(f) f()\n")
    (tmp_path / "c.c").write_text("#define LOCAL(x) x\n")
    pre = prefilter.Prefilter(_NoStore(), str(tmp_path))
    assert pre.function_macro_headers() == {"REG": {"d/a.h", "b.h"}, "REG2": {"d/a.h"}}


def test_files_with_in_does_not_depend_on_what_was_searched_before(tmp_path):
    """A driver's files are searched alone when the whole tree was not; the answer is the
    same as the whole tree's, cut to those files."""
    for rel in ("drv/a.c", "drv/sub/b.h", "other/c.c"):
        os.makedirs(tmp_path / os.path.dirname(rel), exist_ok=True)
        (tmp_path / rel).write_text("int helper_lock(void);\n")
    cands = frozenset({"drv/a.c", "drv/sub/b.h"})
    first = prefilter.Prefilter(_NoStore(), str(tmp_path))
    local = first.files_with_in(["helper_lock", "absent"], "drv", cands)
    assert "helper_lock" not in first.words         # the whole tree was not searched
    second = prefilter.Prefilter(_NoStore(), str(tmp_path))
    assert second.files_with(["helper_lock"]) == ["drv/a.c", "drv/sub/b.h", "other/c.c"]
    assert second.files_with_in(["helper_lock", "absent"], "drv", cands) == local == ["drv/a.c", "drv/sub/b.h"]


def test_files_including(tmp_path, backend):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.c").write_text('#include <linux/foo.h>\n# include "bar.h"\n')
    (tmp_path / "d" / "b.h").write_text('#include "../d/bar.h"\n/* foo.h bar */\n')
    (tmp_path / "c.c").write_text("int foo_h;\n")
    pre = prefilter.Prefilter(_NoStore(), str(tmp_path))
    assert pre.files_including(["bar.h"]) == ["d/a.c", "d/b.h"]
    assert pre.files_including(["foo.h", "none.h"]) == ["d/a.c"]


def test_struct_definers(tmp_path, backend):
    (tmp_path / "a.h").write_text("struct foo {\n\tint x;\n};\nstruct bar\n{\n};\n")
    (tmp_path / "b.c").write_text("static struct foo *p;\nstruct baz x = { 1 };\n")
    (tmp_path / "c.h").write_text("typedef struct\nqux { int y; } qux_t;\n")
    pre = prefilter.Prefilter(_NoStore(), str(tmp_path))
    assert pre.struct_definers("foo") == ["a.h"]
    assert pre.struct_definers("bar") == ["a.h"]
    assert pre.struct_definers("qux") == ["c.h"]           # the tag on the line after `struct`
    assert pre.struct_definers("baz") == []
