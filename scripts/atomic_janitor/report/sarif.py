"""findings.sarif: SARIF 2.1.0, one result per finding, rule = the form."""

import json

from .summary import message

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FORM_HELP = {
    "gfp-select": "Chooses a GFP flag by guessing the context; let the caller pass a gfp_t.",
    "sleep-guard": "Sleeps only when the guess says it may; prove the context or let the caller say.",
    "delay-select": "Chooses busy-waiting or sleeping by guessing the context.",
    "lock-select": "Chooses a locking or transfer strategy by guessing the context.",
    "assertion": "Asserts a context with a predicate that cannot see spinlocks without PREEMPT_COUNT.",
    "bail-out": "Refuses to run when the guess says atomic.",
    "wrapper": "Wraps a context-guessing predicate; each caller is a finding.",
    "other": "Uses a context-guessing predicate's value in another way.",
}
LEVEL = {"manual-review": "warning", "core-allowed": "note", "unclassified": "warning"}


def render(doc):
    forms = sorted({r["form"] for r in doc["findings"]} | set(FORM_HELP))
    rules = [{"id": f, "name": f.title().replace("-", ""),
              "shortDescription": {"text": FORM_HELP.get(f, f)},
              "helpUri": "https://www.kernel.org/doc/html/latest/kernel-hacking/locking.html"}
             for f in forms]
    index = {f: i for i, f in enumerate(forms)}
    results = []
    for r in doc["findings"]:
        res = {
            "ruleId": r["form"], "ruleIndex": index[r["form"]],
            # a live bug is an error whatever its class; the others keep their level
            "level": "error" if r.get("live_bug") else
                     LEVEL.get(r["class"], "error" if r["file"].startswith("drivers/") else "warning"),
            "message": {"text": message(r)},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": r["file"], "uriBaseId": "KSRC"},
                "region": {"startLine": r["line"], "startColumn": r["col"] + 1,
                           "endColumn": r["colend"] + 1}},
                **({"logicalLocations": [{"name": r["function"] or r["macro"],
                                          "kind": "function" if r["function"] else "macro"}]}
                   if (r["function"] or r["macro"]) else {})}],
            "partialFingerprints": {"atomicJanitorId/v1": r["id"]},
            **({"baselineState": r["baseline_state"]} if r.get("baseline_state") else {}),
            "properties": {"class": r["class"], "confidence": r["confidence"], "via": r["via"],
                           "predicate": r["predicate"], "expression": r["expression"],
                           "config": r["config"], "subsystem": r["subsystem"],
                           "liveBug": r.get("live_bug")},
        }
        if r["evidence"]:
            res["relatedLocations"] = [
                {"id": i, "message": {"text": e["fact"]},
                 "physicalLocation": {"artifactLocation": {"uri": e["file"], "uriBaseId": "KSRC"},
                                      "region": {"startLine": max(1, e.get("line") or 1)}}}
                for i, e in enumerate(r["evidence"]) if e.get("file")]
        results.append(res)
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "atomic-janitor", "informationUri":
                                "https://lwn.net/Articles/274695/", "rules": rules}},
            "originalUriBaseIds": {"KSRC": {"description": {"text": f"root of {doc['tree']['name']}"}}},
            "results": results,
            "properties": {"tree": doc["tree"], "predicates": doc["predicates"], "scope": doc["scope"],
                           "notAnalysed": doc["not_analysed"]},
        }],
    }
    return json.dumps(log, indent=2, sort_keys=True) + "\n"
