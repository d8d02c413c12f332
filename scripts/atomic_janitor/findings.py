"""The data contract between the stages: what a findings.json document holds (described in
docs/findings-schema.md, checked by schema/findings.schema.json). Every stage reads and
writes findings through these names; this module imports nothing of the tool, so that any
stage can depend on it without depending on another stage."""

import hashlib
import json

SCHEMA_VERSION = 1
TOOL = "atomic-janitor"
FILE_NAME = "findings.json"
# What `make patches` writes beside a series: each patched finding's id, its patch file and
# the digest of the fix it carries out, so that a report links a finding to its patch only
# while the finding still asks for that same fix.
SERIES_INDEX = "index.json"

UNCLASSIFIED = "unclassified"
MANUAL_REVIEW = "manual-review"
# Classes whose findings carry a fix that `make patches` turns into a patch.
PATCHABLE = ("sleepable-proven", "atomic-proven", "caller-gfp", "caller-flag", "assertion",
             "well-defined-condition")
CLASSES = PATCHABLE + (MANUAL_REVIEW, "core-allowed", UNCLASSIFIED)
# The reason of an assertion the kernel already settles (fix null): patches lists it in the
# cover letter instead of swapping it.
NO_SWAP = "no swap: "
# live_bug["when"]: the configurations on which the guess picks the sleeping branch.
LIVE_BUG_WHEN = ("always", "!PREEMPT_COUNT")


def subsystem(rel, tree_kind):
    """The grouping the reports use: the first two path components in a kernel tree, the
    first one in a module directory."""
    parts = rel.split("/")
    if tree_kind == "module-dir":
        return parts[0] if len(parts) > 1 else "."
    if len(parts) >= 3:
        return "/".join(parts[:2])
    return parts[0]


def patchable(doc):
    return [f for f in doc["findings"] if f.get("class") in PATCHABLE and f.get("fix")]


def is_document(doc):
    """Whether `doc` has the shape of a findings document (what a baseline or a stale file
    must have before any stage reads it)."""
    return isinstance(doc, dict) and isinstance(doc.get("findings"), list)


def fix_digest(fix):
    return hashlib.sha256(json.dumps(fix, sort_keys=True).encode()).hexdigest()[:16]
