"""Names that a `##` may build, which no word search finds: `DEVICE_ATTR_RO(foo)` refers to
foo_show() through `_name##_show` in include/linux/device.h. A function or macro that no
file mentions is on no path only when no paste could build its name: neither the module
directory's own `##` fragments nor the kernel headers' (a module is built against them,
and a module directory does not hold them) start or end it, and the directory uses no
macro that pastes two of its arguments (`__PASTE(a, b)`), whose parts are anyone's.

The kernel's fragments are data (kernel_paste.txt), made from a tree's include/ and
arch/*/include/ by `python3 -m atomic_janitor.analysis.paste KSRC` (Debian's 6.1 here; the
real-tree tests check the file against it), so that a scan never depends on which kernel
tree happens to be unpacked on the machine."""

import os
import re
import sys

HEAD = re.compile(r"(\w+)\s*##")
TAIL = re.compile(r"##\s*(\w+)")
KERNEL_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernel_paste.txt")
# The kernel's macros that paste their arguments together, whatever those are.
ARG_PASTERS = re.compile(r"\b(__PASTE|___PASTE|CONCATENATE|__CONCAT|PASTE|__UNIQUE_ID|_PASTE)\s*\(")
MIN_LEN = 3                     # shorter fragments start or end too many names to mean anything


def fragments(text):
    """(heads, tails): the words that a `##` in text pastes something after or before."""
    if "##" not in text:
        return set(), set()
    return ({h for h in HEAD.findall(text) if len(h) >= MIN_LEN},
            {t for t in TAIL.findall(text) if len(t) >= MIN_LEN})


_KERNEL = None


def kernel_fragments():
    """(heads, tails) of the kernel headers, from kernel_paste.txt."""
    global _KERNEL
    if _KERNEL is None:
        heads, tails = set(), set()
        with open(KERNEL_FILE, encoding="utf-8") as fh:
            for line in fh:
                kind, _sp, word = line.strip().partition(" ")
                (heads if kind == "head" else tails if kind == "tail" else set()).add(word)
        _KERNEL = (frozenset(heads), frozenset(tails))
    return _KERNEL


def may_build(name, heads, tails):
    """Could a paste with one of these fragments build `name`?"""
    return any(name.startswith(h) and name != h for h in heads) or \
        any(name.endswith(t) and name != t for t in tails)


def kernel_text(root):
    """The kernel headers' text a module sees: include/ and arch/*/include/."""
    dirs = [os.path.join(root, "include")]
    arch = os.path.join(root, "arch")
    if os.path.isdir(arch):
        dirs += [os.path.join(arch, a, "include") for a in sorted(os.listdir(arch))]
    for top in dirs:
        for d, subdirs, files in os.walk(top):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith(".h"):
                    with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                        yield fh.read()


def generate(root):
    """The lines of kernel_paste.txt for the kernel tree at root."""
    heads, tails = set(), set()
    for text in kernel_text(root):
        h, t = fragments(text)
        heads |= h
        tails |= t
    return [f"head {h}" for h in sorted(heads)] + [f"tail {t}" for t in sorted(tails)]


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "include")):
        sys.exit("usage: python3 -m atomic_janitor.analysis.paste KSRC (a kernel tree with include/)")
    with open(KERNEL_FILE, "w", encoding="utf-8") as out:
        out.write("\n".join(generate(sys.argv[1])) + "\n")
