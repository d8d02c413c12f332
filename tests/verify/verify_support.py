"""Shared fixtures for the verify tests.

Unit tests (unmarked) need no kernel tree, QEMU or network: they use golden console logs in
data/, fake trees under tmp_path and a fake QEMU script.  Real-boot tests are marked qemu and
share one kernel build (the verify cache under ~/.cache/atomic-janitor/verify/).
"""
import importlib
import importlib.util
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QV = os.path.join(REPO, "qemu-verify")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PYTHON = "/usr/bin/python3"


def load():
    if "qemu_verify" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "qemu_verify", os.path.join(QV, "__init__.py"), submodule_search_locations=[QV])
        pkg = importlib.util.module_from_spec(spec)
        sys.modules["qemu_verify"] = pkg
        spec.loader.exec_module(pkg)
    return sys.modules["qemu_verify"]


load()


@pytest.fixture
def qv():
    return load()


def golden(name):
    with open(os.path.join(DATA, name), encoding="utf-8", errors="replace") as f:
        return f.read()
