"""The one place that runs spatch: options from the rule header, jobs, per-file result cache.

Each file is analysed on its own (--no-includes), so its records depend only on its content,
the rule text, the spatch version and the names asked for: that is the cache key.
"""

import hashlib
import json
import os
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

from . import deps
from .progress import Progress

RECORD_PREFIX = "AJ:"
FILE_TIMEOUT = 120          # seconds for one file; a pathological file must not stall the scan
# Files per spatch process. Its start-up (the rule, standard.h and the macro file, Python)
# costs 0.7 s for facts-context.cocci and 1.2 s for facts-regions.cocci, as much as parsing
# a dozen driver files: a cold scan of 3,000 caller files paid it 370 times in batches of 8.
# Big batches, but enough of them to keep every job busy to the end.
MAX_BATCH = 48
MIN_BATCH = 4


def batch_count(n_files, jobs):
    """How many spatch processes share n_files: at most MAX_BATCH files each, and (where
    there are more than MIN_BATCH files a job) two batches a job, so that the last one to
    finish is not alone for long."""
    if n_files <= 0:
        return 0
    return max((n_files + MAX_BATCH - 1) // MAX_BATCH,
               min(2 * max(1, jobs), (n_files + MIN_BATCH - 1) // MIN_BATCH))


def rule_options(rule_path):
    """The `// Options:` header line, as the kernel's coccicheck reads it."""
    with open(rule_path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"//\s*Options:\s*(.*)$", line)
            if m:
                return m.group(1).split()
    return []


_VERSION = None


def spatch_version():
    global _VERSION
    if _VERSION is None:
        exe = deps.ensure_spatch()
        res = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
        _VERSION = (res.stdout.splitlines() or ["unknown"])[0]
    return _VERSION


class Result:
    def __init__(self):
        self.records = {}       # relpath -> [record]
        self.failed = {}        # relpath -> reason
        self.ran = 0            # files actually given to spatch (not from cache)


def _run_batch(exe, rule, opts, root, files, env, defines):
    argv = [*exe, "--sp-file", rule, *opts, "--timeout", str(FILE_TIMEOUT)]
    for d in defines:
        argv += ["-D", d]
    # One group per file: each file is matched on its own, never with its batch mates.
    with tempfile.NamedTemporaryFile("w", prefix="aj-groups-", suffix=".txt") as groups:
        groups.write("\n\n".join(files) + "\n")
        groups.flush()
        argv += ["--file-groups", groups.name]
        try:
            res = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True,
                                 errors="replace", timeout=FILE_TIMEOUT * len(files) + 30, check=False)
        except subprocess.TimeoutExpired:
            return None, "spatch timed out"
    recs = {f: [] for f in files}
    for line in res.stdout.splitlines():
        if line.startswith(RECORD_PREFIX):
            rec = json.loads(line[len(RECORD_PREFIX):])
            recs.setdefault(rec["file"], []).append(rec)
    if res.returncode != 0:
        err = [l for l in res.stderr.splitlines() if l.strip() and not l.startswith(("init_defs", "HANDLING"))]
        return recs, "spatch exited %d: %s" % (res.returncode, (err or ["(no message)"])[-1][:200])
    return recs, None


def definer(macro_file, root):
    """rel -> does the file #define one of the macro file's names itself?"""
    if not macro_file:
        return lambda rel: False
    with open(macro_file, encoding="utf-8") as fh:
        names = re.findall(r"^#define (\w+)", fh.read(), re.M)
    pat = re.compile(r"^\s*#\s*define\s+(%s)\b" % "|".join(names), re.M)

    def defines(rel):
        try:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                return pat.search(fh.read()) is not None
        except OSError:
            return False
    return defines


def run(rule, root, files, names, fingerprints, store, jobs, defines=("janitor",), label="spatch",
        select=None):
    """Run `rule` on `files` (relpaths under root) looking for `names`; cached per file.

    `names` is either one list for every file, or a dict relpath -> the names that file
    mentions (from the prefilter): then a new name only re-runs the files that mention it.
    `select(rel, names, records)`, for a rule whose records for one name do not depend on
    the other names asked for, lets files with different names share a spatch process (asked
    for the union); it keeps the records of the file's own names, so what is cached is what
    a run for those names alone prints.
    """
    exe = deps.spatch_command()
    with open(rule, "rb") as fh:
        rule_text = fh.read()
    plain = key_opts = rule_options(rule)
    macro_file = getattr(store, "macro_file", None)
    defines_macro = definer(macro_file, root)
    if macro_file:
        # The file's name carries its digest: a tree whose macros change is parsed anew.
        key_opts = [*key_opts, "--macro-file", os.path.basename(macro_file)]
    with_macros = [*plain, "--macro-file", macro_file] if macro_file else plain
    key_src = json.dumps([hashlib.sha256(rule_text).hexdigest(), spatch_version(), key_opts, list(defines)])
    key = hashlib.sha256(key_src.encode()).hexdigest()[:16]
    cache_name = f"spatch-{os.path.basename(rule)}-{key}"
    cache = store.load(cache_name)
    per_file = names if isinstance(names, dict) else None
    result = Result()
    todo = {}
    entry_keys = {}
    own = {}                    # relpath -> the names asked for that file
    for rel in files:
        try:
            sha = fingerprints.sha(rel)
        except OSError as exc:
            result.failed[rel] = f"unreadable: {exc.strerror}"
            continue
        own[rel] = sorted(per_file.get(rel, ()) if per_file is not None else names)
        file_names = ",".join(own[rel])
        ekey = f"{sha}:{file_names}"
        entry_keys[rel] = ekey
        ent = cache.get(ekey)
        if ent is not None:
            result.records[rel] = [dict(r, file=rel) for r in ent["records"]]
            if ent.get("error"):
                result.failed[rel] = ent["error"]
        else:
            # A file that defines one of the macros itself is parsed without the macro file:
            # spatch would expand the name in its own #define line and lose what follows.
            todo.setdefault((file_names, not defines_macro(rel)), []).append(rel)
    # Big files first, so that one slow file does not finish alone at the end.
    batches = []
    groups = sorted(todo.items())
    if select is not None and groups:
        merged = {}
        for (_n, use), rels in groups:
            merged.setdefault((None, use), []).extend(rels)
        groups = sorted((k, sorted(v)) for k, v in merged.items())
    for (file_names, use), rels in groups:
        rels.sort(key=lambda r: (-os.path.getsize(os.path.join(root, r)), r))
        n = batch_count(len(rels), jobs)
        opts = with_macros if use else plain
        for i in range(n):
            batch = rels[i::n]
            if file_names is None:     # select: the union of the batch's names
                union = sorted({x for r in batch for x in own[r]})
                batches.append((",".join(union), batch, opts))
            else:
                batches.append((file_names, batch, opts))
    batches.sort(key=lambda b: -sum(os.path.getsize(os.path.join(root, r)) for r in b[1]))
    progress = Progress(label, sum(len(b[1]) for b in batches))

    def work(item):
        file_names, batch, opts = item
        env = deps.spatch_env(AJ_PREDICATES=file_names)
        recs, err = _run_batch(exe, rule, opts, root, batch, env, defines)
        if recs is None or (err and len(batch) > 1):
            # Retry one by one, so that one bad file does not take its batch down with it.
            out = {}
            for rel in batch:
                r1, e1 = _run_batch(exe, rule, opts, root, [rel], env, defines)
                out[rel] = (r1.get(rel, []) if r1 else [], e1)
            return out
        return {rel: (recs.get(rel, []), None) for rel in batch}

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for out in pool.map(work, batches):
            for rel, (recs, err) in out.items():
                if select is not None:
                    recs = select(rel, own[rel], recs)
                result.records[rel] = recs
                if err:
                    result.failed[rel] = err
                cache[entry_keys[rel]] = {"records": [{k: v for k, v in r.items() if k != "file"} for r in recs],
                                          "error": err}
                result.ran += 1
            progress.step(len(out))
    progress.close()
    if result.ran:
        store.save(cache_name, cache)
    return result
