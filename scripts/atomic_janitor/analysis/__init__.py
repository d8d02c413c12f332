"""Context inference and classification (DESIGN 4 and 5): facts from cocci/facts-*.cocci,
a whole-tree call graph found by a name-grep closure, fixed-point propagation, classes."""
