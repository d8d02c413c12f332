"""The compile memo: a result comes back only for the same files, objects and configuration."""
from qemu_verify import memo


def test_a_result_is_reused_only_for_the_same_inputs(tmp_path):
    src = tmp_path / "src"
    (src / "drivers/x").mkdir(parents=True)
    (src / "drivers/x/x.c").write_text("int f(void) { return 0; }\n")
    files = ["drivers/x/x.c", "drivers/x/new.c"]          # new.c: created by a later patch
    m = memo.CompileMemo(str(tmp_path / "memo.json"))
    k = m.key("kernel abc", ["drivers/x/x.o"], str(src), files)
    assert m.get(k) is None
    m.put(k, {"drivers/x/x.o": {"ok": True, "warnings": [], "error": None}})
    m.save()
    again = memo.CompileMemo(str(tmp_path / "memo.json"))
    assert again.key("kernel abc", ["drivers/x/x.o"], str(src), files) == k
    assert again.get(k)["drivers/x/x.o"]["ok"] and again.hits == [k]
    # another config, another object list, or any series file changed: another key
    assert again.key("kernel abd", ["drivers/x/x.o"], str(src), files) != k
    assert again.key("kernel abc", ["drivers/x/y.o"], str(src), files) != k
    (src / "drivers/x/new.c").write_text("")
    assert again.key("kernel abc", ["drivers/x/x.o"], str(src), files) != k
    # what this run did not use is dropped when it saves
    again.save()
    third = memo.CompileMemo(str(tmp_path / "memo.json"))
    assert list(third.data) == [k]
    third.save()
    assert memo.CompileMemo(str(tmp_path / "memo.json")).data == {}
