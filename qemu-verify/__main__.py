"""Entry point: ``/usr/bin/python3 qemu-verify <command> ...`` (see verify.py)."""
import importlib.util
import os
import sys


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    if "qemu_verify" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "qemu_verify", os.path.join(here, "__init__.py"),
            submodule_search_locations=[here])
        pkg = importlib.util.module_from_spec(spec)
        sys.modules["qemu_verify"] = pkg
        spec.loader.exec_module(pkg)
    return importlib.import_module("qemu_verify.cli")


if __name__ == "__main__":
    sys.exit(_load().main())
