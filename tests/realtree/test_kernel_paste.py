"""analysis/kernel_paste.txt is what its generator makes of Debian's 6.1 headers: the
fragments that decide whether a module's function nothing names may be built by a paste."""

import pytest

from atomic_janitor.analysis import paste

pytestmark = pytest.mark.realtree


def test_the_kernel_fragments_are_the_trees(tree61):
    with open(paste.KERNEL_FILE, encoding="utf-8") as fh:
        assert fh.read().splitlines() == paste.generate(tree61.root)
    heads, tails = paste.kernel_fragments()
    assert "_show" in tails and "_store" in tails           # DEVICE_ATTR_RO(foo): foo_show()
    assert "dev_attr_" in heads
