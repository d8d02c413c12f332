"""The context-guessing predicates (DESIGN 8) and where they are defined."""

BASE = "in_atomic"
FAMILY = ("in_atomic", "in_interrupt", "in_irq", "in_hardirq", "in_softirq", "in_serving_softirq",
          "in_task", "in_nmi", "irqs_disabled", "preemptible")

# Wrappers the tree defines are found by the scan itself; these are the ones PREDICATES=all
# names explicitly so that a tree without their definition (an out-of-tree module directory
# built against a kernel elsewhere) still has their uses found.
KNOWN_WRAPPERS = {"drm_can_sleep": ["drm_can_sleep", "in_atomic"]}

# The predicates whose true answer means "may sleep"; every other one answers true in the
# context it guesses to be atomic. A known wrapper scanned as a predicate of its own
# (PREDICATES=all) is not seen as a wrapper, so its polarity must come from here:
# include/drm/drm_util.h, drm_can_sleep() returns false when in_atomic() || irqs_disabled().
SLEEPABLE_WHEN_TRUE = frozenset({"preemptible", "in_task", "drm_can_sleep"})


def expand(spec):
    """PREDICATES value -> sorted list of base predicates; ValueError on an unknown name."""
    names = [n for n in spec.replace(",", " ").split() if n]
    if not names:
        return [BASE]
    out = set()
    for n in names:
        if n == "all":
            out.update(FAMILY)
            out.update(KNOWN_WRAPPERS)
        elif n in FAMILY or n in KNOWN_WRAPPERS:
            out.add(n)
        else:
            raise ValueError(n)
    return sorted(out)


def is_definition(owner, called):
    """A use inside the definition of a family predicate is that predicate's definition."""
    return owner is not None and (owner in FAMILY or owner.startswith("__") and owner.lstrip("_") in FAMILY)
