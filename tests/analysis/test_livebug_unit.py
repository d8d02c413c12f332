"""The predicates' values per atomic state (include/linux/preempt.h, irqflags.h in 6.1)."""

from atomic_janitor.analysis import livebug as L


def test_region_states():
    assert L.region_state("spin_lock") == {"preempt"}
    assert L.region_state("spin_lock_irqsave") == {"preempt", "irqs"}
    assert L.region_state("raw_spin_lock_irq") == {"preempt", "irqs"}
    assert L.region_state("spin_lock_bh") == {"preempt", "bh"}
    assert L.region_state("local_irq_save") == {"irqs"}
    assert L.region_state("rcu_read_lock") is None          # not modelled: no claim rests on it


def test_values_with_and_without_preempt_count():
    spin = L.values({"preempt"}, True), L.values({"preempt"}, False)
    assert spin[0]["in_atomic"] and not spin[1]["in_atomic"]
    assert not spin[0]["in_interrupt"] and not spin[0]["irqs_disabled"]
    irq = L.values({"irqs"}, True)
    assert irq["irqs_disabled"] and not irq["in_atomic"] and not irq["in_interrupt"]
    bh = L.values({"preempt", "bh"}, False)
    assert bh["in_atomic"] and bh["in_interrupt"] and bh["in_softirq"] and not bh["in_serving_softirq"]
    hard = L.values({"hardirq", "irqs"}, False)
    assert hard["in_irq"] and hard["in_interrupt"] and not hard["in_task"]
    assert not L.values(set(), False)["preemptible"]            # 0 without PREEMPT_COUNT
    assert L.values(set(), True)["preemptible"]


def test_evaluate_conditions():
    v = L.values({"preempt"}, False)
    assert L.evaluate("!in_interrupt()", v) is True
    assert L.evaluate("in_atomic() || irqs_disabled()", v) is False
    assert L.evaluate("!(in_atomic() || irqs_disabled())", L.values({"irqs"}, True)) is False
    assert L.evaluate("in_atomic() && foo", v) is None           # anything else: no claim
    assert L.evaluate("x->in_atomic()", v) is None
