"""`make scan`, the stages in order: the scan stage detects the uses and writes them as
unclassified findings, the analysis stage classifies them, the report stage renders every
format, and the result replaces the previous reports atomically. The only module that knows
the order; each stage knows the findings contract and the shared helpers, never another stage."""

import json
import os
import shutil
import tempfile
import time

from . import baseline as baselinemod
from . import cache, family, lastscan, macrofile, prefilter, resultcache, tree as treemod
from .analysis import classify as classifymod
from .atomicio import replace_dir, staging_dir, write_json
from .errors import IncompleteScan, JanitorError
from .findings import FILE_NAME, SERIES_INDEX, fix_digest
from .report import render_all, render_html
from .scan import detect, records

DEFAULT_SCOPE = ("drivers/", "sound/", "include/drm/")
FORMATS = ("summary", "json", "sarif", "html")


def parse_scope(spec, tree):
    if not spec:
        return ["."] if tree.kind == "module-dir" else list(DEFAULT_SCOPE)
    parts = [p for p in spec.replace(",", " ").split() if p]
    if "all" in parts or "." in parts:
        return ["."]
    out = []
    for p in parts:
        p = p.strip("/")
        if os.path.isabs(p) or ".." in p.split("/"):
            raise JanitorError(f"SCOPE entry {p!r} must be a path inside the tree")
        full = os.path.join(tree.root, p)
        if not os.path.exists(full):
            raise JanitorError(f"SCOPE entry {p!r} does not exist in {tree.name}")
        out.append(p + "/" if os.path.isdir(full) else p)
    return sorted(set(out))


def parse_formats(spec):
    if not spec:
        return list(FORMATS)
    out = []
    for f in spec.replace(",", " ").split():
        if f not in FORMATS:
            raise JanitorError(f"unknown FORMAT {f!r}", f"choose from: {', '.join(FORMATS)}")
        out.append(f)
    return out


def parse_predicates(spec):
    try:
        return family.expand(spec or family.BASE)
    except ValueError as exc:
        raise JanitorError(f"unknown PREDICATES entry {exc.args[0]!r}",
                           f"use names from: {', '.join(family.FAMILY)}, or 'all'") from None


def blocking_not_analysed(doc, scope):
    """What KEEP_GOING is for: in-scope code the scan could not read. A header outside the
    scope (a tracepoint header, say) only leaves the sites that depend on it unknown, and a
    trace event definition records the context, it decides nothing: both are listed in
    summary.txt and never fail the scan."""
    return [d for d in doc["not_analysed"]
            if detect.in_scope(d["file"], scope) and not d["reason"].startswith(detect.TRACE_EVENT_REASON)]


def output_dir(out_root, tree):
    return os.path.join(out_root, tree.name)


def patch_links(doc, report_dir, series_dir):
    """{finding id: href of its patch, relative to report_dir} from the series index that
    `make patches` wrote, for the findings that still ask for the fix their patch carries out.
    No index (no series yet) or an unreadable one: no links."""
    try:
        with open(os.path.join(series_dir, SERIES_INDEX), encoding="utf-8") as fh:
            index = json.load(fh)
        patches = index["patches"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    out = {}
    for f in doc["findings"]:
        p = patches.get(f["id"])
        if p and f.get("fix") and p.get("fix") == fix_digest(f["fix"]):
            out[f["id"]] = os.path.relpath(os.path.join(series_dir, p["file"]), report_dir).replace(os.sep, "/")
    return out


def _link_reports(res):
    """After `make patches`: index.html beside the findings links each fix to its patch."""
    report_dir = os.path.dirname(res["findings"])
    if not os.path.exists(os.path.join(report_dir, "index.html")):
        return
    with open(res["findings"], encoding="utf-8") as fh:
        doc = json.load(fh)
    links = patch_links(doc, report_dir, res["dir"])
    render_html(doc, report_dir, links)
    print(f"  {len(links)} fix(es) linked to their patch in {os.path.relpath(report_dir)}/index.html")


def patches(argv):
    """`make patches`: the patches stage, then the report's links to what it wrote."""
    from .patches import cli as patches_cli
    return patches_cli.main(argv, after=_link_reports)


def _analyse(tree, scope, predicates, store, jobs, classify, t0, log, scratch):
    """Detection and classification: the findings document, the files analysed, spatch runs."""
    store.macro_file = macrofile.build(tree, scratch or store.dir)
    fps = cache.Fingerprints(store, tree.root)
    pre = prefilter.Prefilter(store, tree.root)
    det = detect.detect(tree, scope, predicates, pre, fps, store, jobs)
    pre.save()
    fps.save()
    doc = records.build(tree, det, predicates, scope, det.read_lines)
    t_detect = time.monotonic() - t0
    if classify:
        classifymod.run(tree, doc, scope, store, fps, pre, jobs)
        classifymod.LAST_TIMING["detect_seconds"] = t_detect
        tm = classifymod.LAST_TIMING
        log(f"  classify: {tm['classify_seconds']:.1f}s, {tm['nodes']} functions, {tm['files']} files "
            f"({tm['spatch_runs']} by spatch); detect {t_detect:.1f}s")
    # the reports see the same document, key order included, whether it was just made or
    # reused: both go through the same JSON round trip
    doc = json.loads(json.dumps(doc, sort_keys=True))
    return doc, list(det.analysed_files), det.spatch_runs


def scan(ksrc, scope_spec, predicates_spec, jobs, formats_spec, out_root, keep_going=False,
         use_cache=True, log=print, classify=True, baseline_path=None, series_root=None,
         reuse_result=True):
    predicates = parse_predicates(predicates_spec)
    formats = parse_formats(formats_spec)
    tree = treemod.resolve(ksrc)
    scope = parse_scope(scope_spec, tree)
    jobs = jobs or os.cpu_count() or 1
    t0 = time.monotonic()
    store = cache.Store(tree, enabled=use_cache)
    rkey = resultcache.key(tree, predicates, scope, classify) if use_cache else None
    hit = resultcache.load(store, predicates, scope, classify, rkey) if use_cache and reuse_result else None
    if hit:
        doc, analysed, spatch_runs = hit["doc"], hit["analysed_files"], 0
        classifymod.LAST_TIMING.clear()
        classifymod.LAST_TIMING.update(hit["timing"])
        log("  classify: reused: the tree, the tool and the options are those of the last scan "
            "(any change runs the analysis again)")
    else:
        # without a cache the macro file lives only as long as this analysis
        scratch = None if use_cache else tempfile.mkdtemp(prefix="aj-macros-")
        try:
            doc, analysed, spatch_runs = _analyse(tree, scope, predicates, store, jobs, classify, t0, log,
                                                  scratch)
        finally:
            if scratch:
                shutil.rmtree(scratch, ignore_errors=True)
        if use_cache:
            resultcache.save(store, predicates, scope, classify, rkey, doc, analysed, spatch_runs,
                             dict(classifymod.LAST_TIMING))
    final = output_dir(out_root, tree)
    # The scan this one replaces is the default baseline, and is kept beside the new one.
    prev = baseline_path or baselinemod.previous(final)
    base = baselinemod.load(prev) if prev else None
    baselinemod.mark(doc, base, "previous scan" if prev and not baseline_path else prev)
    staging = staging_dir(final)
    try:
        write_json(os.path.join(staging, FILE_NAME), doc)
        if base is not None and not baseline_path:
            write_json(os.path.join(staging, baselinemod.PREVIOUS), base)
        links = patch_links(doc, final, os.path.join(series_root, tree.name)) if series_root else {}
        render_all(doc, staging, formats, links)
        replace_dir(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    elapsed = time.monotonic() - t0
    n = len(doc["findings"])
    log(f"atomic-janitor: {tree.name}{' ' + tree.version if tree.version else ''}: "
        f"{n} finding{'s' if n != 1 else ''} ({', '.join(predicates)}; scope {' '.join(scope)}), "
        f"{len(analysed)} files analysed, {spatch_runs} by spatch, {elapsed:.1f}s")
    by_form = {}
    for r in doc["findings"]:
        by_form[r["form"]] = by_form.get(r["form"], 0) + 1
    if by_form:
        log("  by form: " + ", ".join(f"{k} {v}" for k, v in sorted(by_form.items())))
    blocking = blocking_not_analysed(doc, scope)
    if doc["not_analysed"]:
        log(f"  not analysed: {len(doc['not_analysed'])}, {len(blocking)} of them in the scope "
            "(see summary.txt)")
    log(f"  reports: {os.path.relpath(final)}/")
    if classify:
        by_class = {}
        for r in doc["findings"]:
            by_class[r["class"]] = by_class.get(r["class"], 0) + 1
        for cls, cnt in sorted(by_class.items()):
            log(f"  {cls}: {cnt}")
        bugs = [r for r in doc["findings"] if r.get("live_bug")]
        log(f"  live bugs: {len(bugs)}" + (" (a sleeping branch taken on an atomic path today: "
                                            "listed first in summary.txt)" if bugs else ""))
        log("  " + lastscan.class_line(doc, final))
        if doc.get("baseline"):
            new = sum(1 for r in doc["findings"] if r["baseline_state"] == "new")
            log(f"  since the {doc['baseline']['against']}: {new} new, {len(doc['baseline']['gone'])} gone, "
                f"{len(doc['findings']) - new} unchanged")
    lastscan.write(out_root, tree.root, tree.name)
    if blocking and not keep_going:
        raise IncompleteScan(f"scan incomplete: {len(blocking)} file(s)/site(s) in the scope not analysed",
                             f"listed in {os.path.relpath(final)}/summary.txt; KEEP_GOING=1 accepts this",
                             status=3)
    return doc
