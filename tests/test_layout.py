"""The pipeline's direction, checked on the code's own imports: data flows scan -> findings ->
patches -> verify, and nothing imports upward.

atomic_janitor is in four layers. The contract (findings.py) imports nothing of the tool. The
shared helpers (the other top-level modules, except the drivers) import only the contract and
each other. A stage (each subpackage) imports only itself, the contract and the helpers, never
another stage. The drivers (pipeline, cli, bench, __main__) put the stages in order.
qemu-verify is a stage of its own: it reads patch files, not the tool's modules, and its
modules are ranked so that each imports only modules of a lower rank."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "scripts", "atomic_janitor")
VERIFY = os.path.join(ROOT, "qemu-verify")

CONTRACT = "findings"
DRIVERS = {"pipeline", "cli", "bench", "__main__"}
# qemu-verify: a module may import only modules of a strictly lower rank.
VERIFY_RANK = {"common": 0, "parse": 1, "probes": 1, "apply": 1, "boot": 1, "build": 1, "compile": 1,
               "config": 1, "initramfs": 1, "preflight": 2, "claims": 1, "devices": 1, "memo": 1, "matrix": 2, "verify": 3, "extras": 4, "cli": 5, "__main__": 6,
               "__init__": 0}


def _modules(base):
    """{dotted name relative to base: path} for every .py file under base."""
    out = {}
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "__pycache__")))
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), base)[:-3].replace(os.sep, ".")
                out[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = os.path.join(d, f)
    return out


def _imports(name, path, known):
    """The modules of the same package that `name` imports, resolved from relative and
    absolute forms, including imports inside functions."""
    is_pkg = path.endswith("__init__.py")
    pkg_parts = name.split(".") if is_pkg else name.split(".")[:-1]
    if name == "__init__":
        pkg_parts = []
    found = set()
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = (node.module or "").split(".") if node.module else []
            if node.level:
                if node.level - 1 > len(pkg_parts):
                    continue
                target = pkg_parts[:len(pkg_parts) - (node.level - 1)] + mod
            elif mod and mod[0] in ("atomic_janitor", "qemu_verify"):
                target = mod[1:]
            else:
                continue
            target = ".".join(target)
            for alias in node.names:
                sub = ".".join(filter(None, [target, alias.name]))
                found.add(sub if sub in known else target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in ("atomic_janitor", "qemu_verify"):
                    found.add(".".join(parts[1:]))
    return {m for m in found if m and m != name}


def _layer(mod):
    top = mod.split(".")[0]
    if top == CONTRACT:
        return "contract"
    if top in DRIVERS:
        return "driver"
    if "." in mod or os.path.isdir(os.path.join(PKG, top)):
        return "stage:" + top
    return "helper"


def _violation(src, dst):
    ls, ld = _layer(src), _layer(dst)
    if ls == "contract":
        return "the contract imports nothing of the tool"
    if ls == "driver":
        return None
    if ld == "driver":
        return "only the drivers put the stages in order"
    if ls == "helper" and ld.startswith("stage:"):
        return "a shared helper sits below every stage"
    if ls.startswith("stage:") and ld.startswith("stage:") and ls != ld:
        return "a stage never imports another stage"
    return None


def _graph(base):
    mods = _modules(base)
    return {m: _imports(m, p, mods) for m, p in mods.items()}


def test_no_upward_import_in_atomic_janitor():
    graph = _graph(PKG)
    bad = [f"{s} imports {d}: {why}" for s, ds in sorted(graph.items()) for d in sorted(ds)
           if (why := _violation(s, d))]
    assert not bad, "\n".join(bad)


def test_no_upward_import_in_qemu_verify():
    graph = _graph(VERIFY)
    unranked = sorted(set(graph) - set(VERIFY_RANK))
    assert not unranked, f"give these qemu-verify modules a rank in VERIFY_RANK: {unranked}"
    bad = [f"{s} imports {d}" for s, ds in sorted(graph.items()) for d in sorted(ds)
           if d in VERIFY_RANK and VERIFY_RANK[d] >= VERIFY_RANK[s]]
    assert not bad, "\n".join(bad)


def test_verify_reads_patches_not_the_tool():
    for name, path in _modules(VERIFY).items():
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in ast.walk(tree):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(m.startswith("atomic_janitor") for m in mods), f"qemu-verify/{name}.py imports the tool"


@pytest.mark.parametrize("src,dst,why", [
    ("findings", "tree", "contract"),
    ("tree", "scan.detect", "helper"),
    ("analysis.classify", "scan.forms", "stage"),
    ("patches.cli", "pipeline", "driver"),
])
def test_the_check_catches_each_kind_of_upward_import(src, dst, why):
    # The checker itself must fail on the imports that the layout forbids.
    assert _violation(src, dst) is not None


def test_the_resolver_sees_relative_and_nested_imports(tmp_path):
    pkg = tmp_path / "p"
    (pkg / "scan").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "tree.py").write_text("")
    (pkg / "scan" / "__init__.py").write_text("")
    (pkg / "scan" / "detect.py").write_text("from .. import tree\ndef f():\n    from ..analysis import graph\n")
    (pkg / "analysis").mkdir()
    (pkg / "analysis" / "__init__.py").write_text("")
    (pkg / "analysis" / "graph.py").write_text("")
    g = _graph(str(pkg))
    assert g["scan.detect"] == {"tree", "analysis.graph"}
