"""atomic-janitor: find and remove context-guessing predicates (in_atomic() & co) from drivers."""
