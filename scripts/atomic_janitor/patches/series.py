"""Build the series: findings.json -> fixes (fix.py) -> one commit per driver or family in a
throwaway git repository -> `git format-patch` files, cover letter, manual-review.txt."""

import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

from .. import atomicio, macrofile
from ..errors import JanitorError
from ..findings import PATCHABLE, SERIES_INDEX, fix_digest
from ..progress import Progress
from .. import ctext
from . import checkpatch, fix, maintainers, message

FIXABLE = frozenset(PATCHABLE)
ZERO_FROM = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
FIXED_DATE = "1970-01-01T00:00:00+0000"   # for the throwaway commits; Date: is dropped from the files


def load_findings(path):
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        raise JanitorError(f"no findings at {path}", "run `make scan` (same KSRC, PREDICATES, SCOPE) first") from None
    except (OSError, ValueError) as exc:
        raise JanitorError(f"cannot read {path}: {exc}", "run `make scan` again") from None
    if doc.get("schema") != 1 or "findings" not in doc:
        raise JanitorError(f"{path} is not a findings.json of schema 1", "run `make scan` again")
    return doc


def check_fresh(doc, root, path):
    """Refuse findings whose files changed since the scan (sha256 in `files`)."""
    changed = []
    for rel, sha in sorted((doc.get("files") or {}).items()):
        try:
            with open(os.path.join(root, rel), "rb") as fh:
                cur = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            cur = None
        if cur != sha:
            changed.append(rel + ("" if cur else " (missing)"))
    if changed:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        raise JanitorError(f"{path} is stale: {changed[0]}{more} changed since the scan",
                           "run `make scan` again on this tree, then `make patches`")


def sites_of(doc):
    """Fixable findings merged per site: twins (in_atomic() || irqs_disabled() found once per
    predicate) share one fix."""
    by = collections.OrderedDict()
    for f in doc["findings"]:
        if f.get("class") not in FIXABLE or not f.get("fix"):
            continue
        key = (f["file"], f.get("function") or f.get("macro"), f["line"], f["expression"])
        s = by.get(key)
        if s is None:
            by[key] = {"finding": f, "ids": [f["id"]], "predicates": {f["predicate"]}, "called": {f["called"]}}
        else:
            s["ids"].append(f["id"])
            s["predicates"].add(f["predicate"])
            s["called"].add(f["called"])
    return list(by.values())


def _driver_key(rel):
    return os.path.dirname(rel)


def group(plans):
    """Union-find over the directories each fix touches: one patch per driver, or per family
    when a flag is threaded across drivers. Returns lists of (site, plan), sorted by path."""
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for _site, p in plans:
        keys = [_driver_key(f) for f in p.files] or [_driver_key(p.finding["file"])]
        for k in keys[1:]:
            parent[find(k)] = find(keys[0])
        find(keys[0])
    groups = collections.defaultdict(list)
    for site, p in plans:
        groups[find(_driver_key(p.finding["file"]))].append((site, p))
    out = []
    for items in groups.values():
        items.sort(key=lambda sp: (sp[1].finding["file"], sp[1].finding["line"]))
        out.append(items)
    # bug fixes first: a live bug's patch goes to stable and must not wait behind cleanups
    out.sort(key=lambda g: (not any(s["finding"].get("live_bug") for s, _p in g),
                            min(f for _s, p in g for f in p.files)))
    return out


def _git(cwd, *argv, env=None, input_=None):
    res = subprocess.run(["git", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                         input=input_, check=False)
    if res.returncode != 0:
        raise JanitorError(f"git {argv[0]} failed: {(res.stderr.strip().splitlines() or ['?'])[-1]}")
    return res.stdout


def git_identity():
    """user.name/user.email from the user's global git config, or None."""
    vals = []
    for key in ("user.name", "user.email"):
        res = subprocess.run(["git", "config", "--global", "--get", key], capture_output=True,
                             text=True, check=False)
        vals.append(res.stdout.strip())
    if all(vals):
        return f"{vals[0]} <{vals[1]}>"
    return None


def _parse_ident(s, what):
    m = re.match(r"^\s*(.+?)\s*<([^<>@\s]+@[^<>\s]+)>\s*$", s or "")
    if not m:
        raise JanitorError(f"{what}={s!r} is not of the form 'Name <mail@host>'")
    return m.group(1), m.group(2)


def load_verify(reports_dir):
    path = os.path.join(reports_dir, "verify", "result.json")
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return {}
    out = {}
    for p in doc.get("patches") or []:
        out[(p.get("subject"), tuple(sorted(p.get("files") or [])))] = p
    return out


def _postprocess(path, to, cc):
    """Drop Date: (the series is the same byte for byte on every run), unfold Subject: and
    add To:/Cc:."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    out, in_hdr, i = [], True, 0
    while i < len(lines):
        line = lines[i]
        if in_hdr and line == "":
            in_hdr = False
            if to:
                out.append("To: " + ",\n    ".join(to))
            if cc:
                out.append("Cc: " + ",\n    ".join(cc))
        if in_hdr and line.startswith("Date: "):
            i += 1
            continue
        if in_hdr and line.startswith("Subject: "):
            # One line: format-patch folds a long subject, and b4 0.12 (Debian) cannot read a
            # folded Subject: (issue 13). git am and git send-email take it either way.
            while i + 1 < len(lines) and lines[i + 1].startswith((" ", "\t")):
                i += 1
                line += " " + lines[i].strip()
        out.append(line)
        i += 1
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out))


def upstream_state(f, up_root):
    """'unchanged', or what became of the site in the newer tree."""
    path = os.path.join(up_root, f["file"])
    if not os.path.exists(path):
        return "gone: file removed"
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    owner = f.get("function") or f.get("macro")
    if f.get("macro"):
        m = re.search(r"^#\s*define\s+" + re.escape(owner) + r"\b(.*(?:\\\n.*)*)", text, re.M)
        body = m.group(0) if m else None
    else:
        m = re.search(r"^[^\n;#]*\b" + re.escape(owner) + r"\s*\([^;{]*\)\s*\{", text, re.M)
        body = None
        if m:
            body = text[m.start():ctext.matching(text, m.end() - 1) + 1]
    if body is None:
        return f"gone: {owner}() no longer defined there"
    if not re.search(r"\b" + re.escape(f["called"]) + r"\s*\(", body):
        return f"changed: {owner}() no longer calls {f['called']}()"
    norm = re.sub(r"\s+", " ", body)
    if f["expression"].replace(" ", "") not in norm.replace(" ", ""):
        return f"changed: `{f['expression']}` reads differently in {owner}()"
    return "unchanged"


def manual_review_text(doc, skipped):
    lines = [f"atomic-janitor: sites for a person to decide, {doc['tree']['name']}", ""]
    n = 0
    seen = set()
    for f in doc["findings"]:
        if f.get("class") != "manual-review":
            continue
        key = (f["file"], f["line"], f["expression"])
        if key in seen:     # in_atomic() || irqs_disabled(): one site, one entry
            continue
        seen.add(key)
        n += 1
        owner = f.get("function") or f.get("macro")
        lines.append(f"{f['file']}:{f['line']}: {owner}(): {f['expression']} [{f['form']}]")
        lines.append(f"    reason: {f.get('reason') or '(none given)'}")
        for e in f.get("evidence") or []:
            where = f"{e['file']}:{e['line']}" + (f" {e['function']}()" if e.get("function") else "")
            lines.append(f"    evidence: {where}: {e.get('fact', '')}")
        lines.append("")
    if not n:
        lines += ["No site needs manual review.", ""]
    if skipped:
        lines.append("Fixes that could not be made (review these by hand too):")
        for files, reason in skipped:
            lines.append(f"  {', '.join(files)}: {reason}")
        lines.append("")
    return "\n".join(lines)


def build(tree, doc, findings_path, out_root, reports_dir, from_=None, signoff=None,
          upstream=None, log=print):
    """Write patches-generated/<tree>/; returns a summary dict."""
    root = tree.root
    check_fresh(doc, root, findings_path)
    ident = from_ or git_identity() or "atomic-janitor <atomic-janitor@localhost>"
    a_name, a_mail = _parse_ident(ident, "FROM")
    # Sign off only as someone the user named: SIGNOFF=, or git config when it is also the author.
    so = signoff or (git_identity() if not from_ or from_ == git_identity() else None)
    if so:
        _parse_ident(so, "SIGNOFF")
    verify = load_verify(reports_dir)

    sites = sites_of(doc)
    plans, skipped = [], []
    for s in sites:
        try:
            plans.append((s, fix.plan(s["finding"], root)))
        except fix.Skip as exc:
            skipped.append(([s["finding"]["file"]], str(exc)))
    groups = group(plans)

    ws = fix.Workspace(root)
    ws.use_macros(macrofile.build(tree, ws.dir))
    try:
        results = []
        progress = Progress("patches: fixing", len(groups), unit="patches")
        for g in groups:
            progress.step()
            files = sorted({f for _s, p in g for f in p.files})
            saved = {f: ws.read(f) for f in files}
            seen = set()
            try:
                ops = []
                for _s, p in g:
                    for op in p.ops:
                        key = (op.file, op.rule, tuple(sorted(op.defines.items()) if op.rule == "kernel-doc" else
                                                     sorted((k, v) for k, v in op.defines.items() if k != "pred")),
                               op.flags, op.line, op.subst, op.doc)
                        if key not in seen:
                            seen.add(key)
                            ops.append(op)
                for op in fix.order(ops):
                    fix.run_op(ws, op)
            except fix.Skip as exc:
                for f, text in saved.items():
                    ws.write(f, text)
                skipped.append((files, str(exc)))
                log(f"atomic-janitor: skipped {files[0]}: {exc}", file=sys.stderr)
                continue
            changed = [f for f in files if ws.read(f) != saved[f]]
            if changed:
                results.append((g, changed))
        progress.close()
        return _emit(tree, doc, ws, results, skipped, out_root, (a_name, a_mail), so, verify, upstream, root)
    finally:
        ws.close()


def _emit(tree, doc, ws, results, skipped, out_root, author, signoff, verify, upstream, root):
    final = os.path.join(out_root, tree.name)
    stage = atomicio.staging_dir(final)
    try:
        gitdir = os.path.join(ws.dir, "git")
        os.makedirs(gitdir)
        env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
                   HOME=ws.dir, GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1],
                   GIT_COMMITTER_NAME=author[0], GIT_COMMITTER_EMAIL=author[1],
                   GIT_AUTHOR_DATE=FIXED_DATE, GIT_COMMITTER_DATE=FIXED_DATE)
        _git(gitdir, "init", "-q", env=env)
        all_files = sorted({f for _g, ch in results for f in ch})
        for f in all_files:
            dst = os.path.join(gitdir, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(os.path.join(root, f), dst)
        _git(gitdir, "add", "-A", env=env)
        _git(gitdir, "commit", "-q", "--allow-empty", "-m", "base", env=env)
        meta = []
        for g, changed in results:
            s_list = [s for s, _p in g]
            prefix = maintainers.subject_prefix(root, changed)
            subj = message.subject(prefix, s_list)
            vp = verify.get((subj, tuple(sorted(changed))))
            msg = subj + "\n\n" + message.body(s_list, vp, signoff)
            for f in changed:
                shutil.copyfile(ws.path(f), os.path.join(gitdir, f))
            _git(gitdir, "add", "-A", env=env)
            _git(gitdir, "commit", "-q", "-F", "-", env=env, input_=msg)
            meta.append({"subject": subj, "files": changed, "sites": s_list})
        n = len(meta)
        if n:
            _git(gitdir, "-c", "core.abbrev=12", "format-patch", "-q", "--zero-commit", "--no-signature",
                 "--numbered", "-o", stage, "HEAD~%d" % n, env=env)
        names = sorted(x for x in os.listdir(stage) if x.endswith(".patch"))
        tally = collections.Counter()
        notes = []
        progress = Progress("patches: checkpatch", len(names), unit="patches")
        for name, m in zip(names, meta):
            progress.step()
            path = os.path.join(stage, name)
            to, cc = maintainers.recipients(root, path)
            m["to"], m["cc"], m["file"] = to, cc, name
            _postprocess(path, to, cc)
            msgs = checkpatch.check(root, path)
            v = checkpatch.verdict(msgs)
            if msgs and not signoff and checkpatch.only_signoff(msgs):
                v = "Success (sign-off missing: no identity configured)"
            tally[v.split(" ")[0]] += 1
            m["checkpatch"] = v
            for sev, text in msgs or []:
                notes.append(f"  {name}: {sev}: {text}")
        progress.close()
        summary = {"patches": n, "skipped": skipped, "tally": dict(tally), "meta": meta,
                   "checkpatch_notes": notes}
        cover = _cover(tree, doc, meta, skipped, tally, notes, author, upstream, gitdir, env, root, signoff)
        atomicio.write_text(os.path.join(stage, "0000-cover-letter.patch"), cover)
        atomicio.write_text(os.path.join(stage, "manual-review.txt"), manual_review_text(doc, skipped))
        atomicio.write_text(os.path.join(stage, "series"), "".join(m["file"] + "\n" for m in meta))
        fixes = {f["id"]: f.get("fix") for f in doc["findings"]}
        index = {i: {"file": m["file"], "fix": fix_digest(fixes[i])}
                 for m in meta for s in m["sites"] for i in s["ids"]}
        atomicio.write_text(os.path.join(stage, SERIES_INDEX),
                            atomicio.dumps_json({"tree": tree.name, "patches": index}))
        for x in os.listdir(stage):
            os.chmod(os.path.join(stage, x), 0o644)
        atomicio.replace_dir(stage, final)
        summary["dir"] = final
        return summary
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _cover(tree, doc, meta, skipped, tally, notes, author, upstream, gitdir, env, root, signoff):
    n = len(meta)
    total = f"{n}" if n else "0"
    preds = ", ".join(f"{p}()" for p in doc.get("predicates") or [])
    lines = [ZERO_FROM, f"From: {author[0]} <{author[1]}>",
             f"Subject: [PATCH 0/{total}] Remove context guessing from drivers", ""]
    ov = ("in_atomic() and the other context-guessing predicates cannot tell driver code "
          "whether it may sleep: without CONFIG_PREEMPT_COUNT in_atomic() does not see held "
          "spinlocks, and in_interrupt() and friends never see them. This series replaces the "
          "guesses whose context could be proven: the caller passes a gfp_t or bool, a branch "
          "that can never run is removed, or the code gets the condition it really means. "
          "Each patch stands on its own and names the call chains that establish the context.")
    lines += [message.fill(ov), ""]
    if not n:
        lines += [message.fill("No patch in this series: every site found needs a person's "
                               "decision (manual-review.txt lists them with the reason and the "
                               "evidence), or there is nothing left to fix."), ""]
    ver = doc["tree"].get("version")
    base = f"Base: {tree.name}" + (f" {ver}" if ver else "")
    if maintainers.is_git(root):
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    else:
        head = None
        base += " (not a git tree)"
    lines += [base, message.fill(f"Predicates: {preds}; scope: {' '.join(doc.get('scope') or [])}"), ""]
    counts = collections.Counter(f["class"] for f in doc["findings"])
    patched_ids = {i for m in meta for s in m["sites"] for i in s["ids"]}
    fixed = collections.Counter(f["class"] for f in doc["findings"] if f["id"] in patched_ids)
    lines.append("Findings by class (patched / found):")
    for cls in sorted(counts):
        lines.append(f"  {cls:24} {fixed.get(cls, 0):3} / {counts[cls]}")
    lines.append("")
    if meta:
        lines.append("Patches:")
        for i, m in enumerate(meta, 1):
            strat = sorted({s["finding"]["fix"]["strategy"] for s in m["sites"]})
            lines.append(f"  {i}/{n} {m['subject']}")
            lines.append(f"      {', '.join(strat)}; checkpatch: {m['checkpatch']}")
        lines.append("")
    bug_patches = [m for m in meta if any(st["finding"].get("live_bug") for st in m["sites"])]
    if bug_patches:
        lines.append(message.fill(
            f"Live bugs: the first {len(bug_patches)} patch(es) fix a sleep in atomic context that "
            "happens today (the path is in each message) and carry Cc: stable."
            + ("" if head else " They have no Fixes: tag: the base is not a git tree, so the commit "
               "that added each test is not known here (upstream: git log -S'<expression>' -- <file>).")))
        lines.append("")
    if skipped:
        lines.append("Skipped (the fix did not apply; listed in manual-review.txt):")
        for files, reason in skipped:
            lines.append(message.fill(f"  {files[0]}: {reason}"))
        lines.append("")
    mr = counts.get("manual-review", 0)
    lines.append(f"Manual review: {mr} site(s), listed in manual-review.txt.")
    lines.append("")
    if upstream:
        lines.append(f"Sites in the newer tree {upstream.name}" +
                     (f" {upstream.version}" if upstream.version else "") + ":")
        for f in doc["findings"]:
            if f["class"] == "core-allowed":
                continue
            st = upstream_state(f, upstream.root)
            if st != "unchanged":
                owner = f.get("function") or f.get("macro")
                lines.append(f"  {f['file']}:{owner}(): {f['called']}(): {st}")
        lines.append("  (every other site is unchanged there)")
        lines.append("")
    tl = ", ".join(f"{tally.get(k, 0)} {k}" for k in ("Success", "Warning", "Error"))
    lines.append(f"checkpatch.pl ({' '.join(checkpatch.FLAGS)}): {tl}")
    if not signoff and n:
        lines.append("  (no identity configured: no Signed-off-by; set SIGNOFF= or git config)")
    lines += notes
    lines.append("")
    if n:
        stat = _git(gitdir, "diff", "--stat=72", "--summary", f"HEAD~{n}", "HEAD", env=env)
        lines.append(stat.rstrip("\n"))
        lines.append("")
    if head:
        lines.append(f"base-commit: {head}")
    lines.append("-- ")
    lines.append("atomic-janitor")
    lines.append("")
    return "\n".join(lines)
