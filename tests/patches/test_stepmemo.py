"""The fix-step memo (patches/stepmemo.py): a rerun takes each step from the cache, and a step
whose file changed runs spatch again."""

import glob
import os

from patches_support import FROM, run_patches


def _series_text(out):
    return "".join(open(p, encoding="utf-8").read()
                   for p in sorted(glob.glob(os.path.join(out, "linux-fixture", "**", "*.patch"), recursive=True)))


def test_a_rerun_takes_its_steps_from_the_memo(tmp_path, fxtree, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = str(tmp_path / "a")
    assert run_patches(str(tmp_path), fxtree, first, None, "--from", FROM).returncode == 0
    kept = glob.glob(str(tmp_path / "cache" / "atomic-janitor" / "fix-steps" / "*" / "*"))
    assert kept, "no step was kept"
    # a kept step is used as it is: mark every one, and the marks reach the series
    for path in kept:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("/* from the step memo */\n")
    second = str(tmp_path / "b")
    assert run_patches(str(tmp_path), fxtree, second, None, "--from", FROM).returncode == 0
    assert _series_text(first) and "+/* from the step memo */" in _series_text(second)


SRC = """static void *fx(int n)
{
\treturn kmalloc(n, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);
}
"""


def _step(root):
    from atomic_janitor.patches import fix
    ws = fix.Workspace(str(root))
    try:
        op = fix.Op("fx.c", "fix-gfp-constant.cocci", {"fn": "fx", "pred": "in_atomic", "gfp": "GFP_KERNEL"}, line=3)
        fix.run_op(ws, op)
        return ws.read("fx.c")
    finally:
        ws.close()


def test_a_step_is_kept_by_the_text_it_ran_on(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "fx.c").write_text(SRC)
    assert "GFP_KERNEL);" in _step(tmp_path) and "in_atomic" not in _step(tmp_path)
    (kept,) = glob.glob(str(tmp_path / "cache" / "atomic-janitor" / "fix-steps" / "*" / "*"))
    with open(kept, "a", encoding="utf-8") as fh:
        fh.write("/* from the step memo */\n")
    assert _step(tmp_path).endswith("/* from the step memo */\n")
    # another text, another step: spatch runs again (a second entry) and the mark is not read
    (tmp_path / "fx.c").write_text(SRC.replace("int n", "size_t n"))
    after = _step(tmp_path)
    assert "from the step memo" not in after and "size_t n" in after and "in_atomic" not in after
    assert len(glob.glob(str(tmp_path / "cache" / "atomic-janitor" / "fix-steps" / "*" / "*"))) == 2
