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
from ..findings import NO_SWAP, PATCHABLE, SERIES_INDEX, fix_digest
from ..progress import Progress
from .. import ctext
from . import checkpatch, fix, history, maintainers, message

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


def by_tree(root, groups):
    """[(tree, group)]: the maintainer tree of each patch (MAINTAINERS T:, see
    maintainers.tree_of), patches of one tree together and in group() order."""
    out = []
    for g in groups:
        bug = any(s["finding"].get("live_bug") for s, _p in g)
        out.append((maintainers.tree_of(root, g[0][1].finding["file"], bugfix=bug), g))
    out.sort(key=lambda tg: tg[0]["slug"])          # stable: group() order within a tree
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
            pl = fix.plan(s["finding"], root)
            s["notes"] = pl.notes
            plans.append((s, pl))
        except fix.Skip as exc:
            skipped.append(([s["finding"]["file"]], str(exc)))
    groups = by_tree(root, group(plans))

    ws = fix.Workspace(root)
    ws.use_macros(macrofile.build(tree, ws.dir))
    try:
        results = []
        progress = Progress("patches: fixing", len(groups), unit="patches")
        for t, g in groups:
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
                results.append((t, g, changed))
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
        all_files = sorted({f for _t, _g, ch in results for f in ch})
        for f in all_files:
            dst = os.path.join(gitdir, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(os.path.join(root, f), dst)
        _git(gitdir, "add", "-A", env=env)
        _git(gitdir, "commit", "-q", "--allow-empty", "-m", "base", env=env)
        prev = _git(gitdir, "rev-parse", "HEAD", env=env).strip()
        meta = []
        linked = set()          # the article's Link:, once per series, on its first guess fix
        for t, g, changed in results:
            s_list = [s for s, _p in g]
            prefix = maintainers.subject_prefix(root, changed)
            subj = message.subject(prefix, s_list)
            vp = verify.get((subj, tuple(sorted(changed))))
            link = t["slug"] not in linked and bool(message.guesses(s_list))
            if link:
                linked.add(t["slug"])
            fixes = sorted({tag for st in s_list if st["finding"].get("live_bug")
                            for tag in [history.fixes_tag(root, st["finding"])] if tag})
            msg = subj + "\n\n" + message.body(s_list, vp, signoff, link=link, fixes=fixes)
            for f in changed:
                shutil.copyfile(ws.path(f), os.path.join(gitdir, f))
            _git(gitdir, "add", "-A", env=env)
            _git(gitdir, "commit", "-q", "-F", "-", env=env, input_=msg)
            meta.append({"subject": subj, "prefix": prefix, "files": changed, "sites": s_list, "tree": t, "fixes": fixes,
                         "message": msg,
                         "commit": _git(gitdir, "rev-parse", "HEAD", env=env).strip()})
        trees = []                       # [(tree, [meta])]: one series per maintainer tree
        for m in meta:
            if trees and trees[-1][0]["slug"] == m["tree"]["slug"]:
                trees[-1][1].append(m)
            else:
                trees.append((m["tree"], [m]))
        base_commit = _base_commit(root, doc)
        dropped = collections.defaultdict(list)   # swaps the kernel makes pointless, per tree
        for f in doc["findings"]:
            if f["class"] in FIXABLE and not f.get("fix") and (f.get("reason") or "").startswith(NO_SWAP):
                dropped[maintainers.tree_of(root, f["file"])["slug"]].append(f)
        tally = collections.Counter()
        notes = []
        progress = Progress("patches: checkpatch", len(meta), unit="patches")
        for t, ms in trees:
            d = os.path.join(stage, t["slug"])
            tag = "PATCH" + (f" {t['tag']}" if t["tag"] else "")
            _git(gitdir, "-c", "core.abbrev=12", "format-patch", "-q", "--zero-commit", "--no-signature",
                 "--numbered", "--subject-prefix", tag, "-o", d, f"{prev}..{ms[-1]['commit']}", env=env)
            names = sorted(x for x in os.listdir(d) if x.endswith(".patch"))
            series_tally = collections.Counter()
            for name, m in zip(names, ms):
                progress.step()
                path = os.path.join(d, name)
                to, cc = maintainers.recipients(root, path)
                m["to"], m["cc"], m["file"] = to, cc, f"{t['slug']}/{name}"
                _postprocess(path, to, cc)
                msgs = checkpatch.check(root, path)
                v = checkpatch.verdict(msgs)
                if msgs and not signoff and checkpatch.only_signoff(msgs):
                    v = "Success (sign-off missing: no identity configured)"
                tally[v.split(" ")[0]] += 1
                series_tally[v.split(" ")[0]] += 1
                m["checkpatch"] = v
                for sev, text in msgs or []:
                    notes.append(f"  {m['file']}: {sev}: {text}")
            stat = _git(gitdir, "diff", "--stat=72", "--summary", prev, ms[-1]["commit"], env=env)
            mail, b4 = _cover(doc, t, ms, author, tag, series_tally, stat, base_commit, dropped.get(t["slug"], []))
            atomicio.write_text(os.path.join(d, "0000-cover-letter.patch"), mail)
            atomicio.write_text(os.path.join(d, "b4-cover.txt"), b4)
            atomicio.write_text(os.path.join(d, "series"), "".join(os.path.basename(m["file"]) + "\n" for m in ms))
            prev = ms[-1]["commit"]
        progress.close()
        rebased = _rebase(doc, trees, stage, ws, author, upstream, env) if upstream else None
        n = len(meta)
        summary = {"patches": n, "skipped": skipped, "tally": dict(tally), "meta": meta,
                   "checkpatch_notes": notes, "trees": [(t, [m["file"] for m in ms]) for t, ms in trees]}
        atomicio.write_text(os.path.join(stage, "summary.txt"),
                            _summary(tree, doc, trees, skipped, tally, notes, upstream, signoff, base_commit,
                                     [f for fs in dropped.values() for f in fs], rebased))
        atomicio.write_text(os.path.join(stage, "manual-review.txt"), manual_review_text(doc, skipped))
        atomicio.write_text(os.path.join(stage, "series"), "".join(m["file"] + "\n" for m in meta))
        by_id = {f["id"]: f for f in doc["findings"]}
        # class, function and site: the claim that verify holds the recorded contexts against
        index = {i: {"file": m["file"], "fix": fix_digest(by_id[i].get("fix")),
                     "class": by_id[i].get("class"), "function": by_id[i].get("function"),
                     "site": f"{by_id[i].get('file')}:{by_id[i].get('line')}",
                     "live_bug": (by_id[i].get("live_bug") or {}).get("when"),
                     # the site's own function takes the lock (or turns IRQs off): the
                     # context at its entry is not the site's
                     "region": any(e.get("kind") == "region"
                                   for e in by_id[i].get("evidence") or [])}
                 for m in meta for s in m["sites"] for i in s["ids"]}
        atomicio.write_text(os.path.join(stage, SERIES_INDEX),
                            atomicio.dumps_json({"tree": tree.name, "patches": index}))
        for dirpath, _dirs, files in os.walk(stage):
            for x in files:
                os.chmod(os.path.join(dirpath, x), 0o644)
        atomicio.replace_dir(stage, final)
        summary["dir"] = final
        return summary
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _rebase(doc, trees, stage, ws, author, upstream, env):
    """The series rebased onto the newer tree (UPSTREAM=), in stage/upstream/<tree>/: each
    patch applied with patch(1) (offsets and fuzz allowed) to that tree's files and taken
    again with format-patch, so its context is the newer tree's. Returns [(meta, None or why
    it does not apply there)]."""
    gitdir = os.path.join(ws.dir, "upstream-git")
    os.makedirs(gitdir)
    _git(gitdir, "init", "-q", env=env)
    for f in sorted({f for _t, ms in trees for m in ms for f in m["files"]}):
        src = os.path.join(upstream.root, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(gitdir, f)), exist_ok=True)
            shutil.copyfile(src, os.path.join(gitdir, f))
    _git(gitdir, "add", "-A", env=env)
    _git(gitdir, "commit", "-q", "--allow-empty", "-m", "base", env=env)
    prev = _git(gitdir, "rev-parse", "HEAD", env=env).strip()
    updoc = dict(doc, tree={"name": upstream.name, "version": upstream.version, "kind": upstream.kind})
    base = _base_commit(upstream.root, updoc)
    out = []
    for t, ms in trees:
        done = []
        for m in ms:
            why = _apply_there(gitdir, os.path.join(stage, m["file"]), m, upstream.root)
            out.append((m, why))
            if why is None:
                _git(gitdir, "add", "-A", env=env)
                _git(gitdir, "commit", "-q", "-F", "-", env=env, input_=m["message"])
                done.append(dict(m, commit=_git(gitdir, "rev-parse", "HEAD", env=env).strip()))
        if not done:
            continue
        d = os.path.join(stage, "upstream", t["slug"])
        tag = "PATCH" + (f" {t['tag']}" if t["tag"] else "")
        _git(gitdir, "-c", "core.abbrev=12", "format-patch", "-q", "--zero-commit", "--no-signature",
             "--numbered", "--subject-prefix", tag, "-o", d, f"{prev}..{done[-1]['commit']}", env=env)
        names = sorted(x for x in os.listdir(d) if x.endswith(".patch"))
        tally = collections.Counter()
        for name, m in zip(names, done):
            path = os.path.join(d, name)
            m["to"], m["cc"] = maintainers.recipients(upstream.root, path)
            _postprocess(path, m["to"], m["cc"])
            v = checkpatch.verdict(checkpatch.check(upstream.root, path))
            m["checkpatch"] = v
            tally[v.split(" ")[0]] += 1
        stat = _git(gitdir, "diff", "--stat=72", "--summary", prev, done[-1]["commit"], env=env)
        mail, b4 = _cover(updoc, t, done, author, tag, tally, stat, base)
        atomicio.write_text(os.path.join(d, "0000-cover-letter.patch"), mail)
        atomicio.write_text(os.path.join(d, "b4-cover.txt"), b4)
        atomicio.write_text(os.path.join(d, "series"), "".join(n + "\n" for n in names))
        prev = done[-1]["commit"]
    return out


def _apply_there(gitdir, patch, m, up_root):
    """None when the patch applies to the newer tree's files (then applied), else why not:
    what became of its sites there, or that the code around them changed."""
    missing = [f for f in m["files"] if not os.path.isfile(os.path.join(up_root, f))]
    states = list(dict.fromkeys(st for st in (upstream_state(s["finding"], up_root) for s in m["sites"])
                                if st != "unchanged"))
    if missing:
        return f"gone: {missing[0]} removed"
    with open(patch, "rb") as fh:
        data = fh.read()
    argv = ["patch", "-p1", "-s", "-F2", "--no-backup-if-mismatch", "-r", "-"]
    dry = subprocess.run(argv + ["--dry-run"], cwd=gitdir, input=data, capture_output=True, check=False)
    if dry.returncode != 0:
        return "; ".join(states) if states else "changed: the code around the fix differs there (the hunk does not apply)"
    subprocess.run(argv, cwd=gitdir, input=data, capture_output=True, check=True)
    return None


def _base_commit(root, doc):
    """What the series applies to: the commit of a git checkout; for a release tarball the
    tag of its version (v6.1.192: `git checkout v6.1.192` in a stable clone); else None."""
    if maintainers.is_git(root):
        res = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
        if res.returncode == 0 and res.stdout.strip():
            return res.stdout.strip()
    ver = doc["tree"].get("version")
    if doc["tree"].get("kind") == "kernel" and ver:
        return "v" + (ver[:-2] if ver.endswith(".0") and ver.count(".") == 2 else ver)
    return None


def _common_prefix(ms):
    """The subject prefix the patches share: all of it, else its first component."""
    pres = {m["prefix"] for m in ms}
    if len(pres) == 1:
        return pres.pop()
    heads = {re.split(r"[:/]", p)[0].strip() for p in pres}
    return heads.pop() if len(heads) == 1 else None


def _union(lists, drop=()):
    out = []
    for lst in lists:
        for a in lst:
            if a not in out and a not in drop:
                out.append(a)
    return out


def _dropped_lines(dropped):
    """One entry per assertion left alone, with the reason the analysis gave."""
    out = []
    for f in sorted(dropped, key=lambda f: (f["file"], f["line"])):
        out.append(message.fill(f"  {f['file']}:{f['line']} {f['function']}(): `{f['expression']}`: "
                                + f["reason"][len(NO_SWAP):]))
    return out


def _cover(doc, t, ms, author, tag, tally, stat, base_commit, dropped=()):
    """The cover letter of one tree's series: a mail that git send-email and b4 take."""
    n = len(ms)
    to = _union(m["to"] for m in ms)
    cc = _union((m["cc"] for m in ms), drop=to)
    pre = _common_prefix(ms)
    lines = [ZERO_FROM, f"From: {author[0]} <{author[1]}>"]
    if to:
        lines.append("To: " + ",\n    ".join(to))
    if cc:
        lines.append("Cc: " + ",\n    ".join(cc))
    title = f"{pre + ': ' if pre else ''}Remove context guessing"
    lines += [f"Subject: [{tag} 0/{n}] {title}", ""]
    head = len(lines)
    ov = ("in_atomic() and the other context-guessing predicates cannot tell driver code "
          "whether it may sleep: without CONFIG_PREEMPT_COUNT in_atomic() does not see held "
          "spinlocks, and in_interrupt() and friends never see them. These patches replace the "
          "guesses whose context could be proven: the caller passes a gfp_t or bool, a branch "
          "that can never run is removed, or the code gets the condition it really means. "
          "Each patch stands on its own and names the call chains that establish the context.")
    lines += [message.fill(ov), ""]
    bugs = [m for m in ms if any(st["finding"].get("live_bug") for st in m["sites"])]
    if bugs:
        git = base_commit and re.fullmatch(r"[0-9a-f]{40}", base_commit)
        lines += [message.fill(
            f"Patch{'es' if len(bugs) > 1 else ''} 1{'-%d' % len(bugs) if len(bugs) > 1 else ''} "
            "fix a sleep in atomic context that happens today (the path is in each message) and "
            "carry Cc: stable." + (
                " They have no Fixes: tag: the base is not a git tree, so the commit that added "
                "each test is not known here (upstream: git log -S'<expression>' -- <file>)." if not git else
                "" if all(m["fixes"] for m in bugs) else
                " Where a patch has no Fixes: tag, git log -S and git blame found no commit that "
                "added the test (a shallow clone?).")), ""]
    if dropped:
        lines += [message.fill("Not in this series: lockdep assertion swaps where the kernel already "
                               "guarantees what the check tests, so it can never fire and the swap "
                               "would change nothing worth a patch:")]
        lines += _dropped_lines(dropped) + [""]
    where = t["tree"] or (f"no tree in MAINTAINERS; list {t['list']}" if t["list"] else "no tree in MAINTAINERS")
    lines.append(f"Tree: {where}" + (f" (MAINTAINERS: {t['section']})" if t["section"] else ""))
    ver = doc["tree"].get("version")
    lines.append(f"Base: {doc['tree']['name']}" + (f" {ver}" if ver else ""))
    lines.append("")
    # b4 prep --edit-cover takes the title and this text; it adds shortlog, diffstat and
    # base-commit itself
    b4 = "\n".join([title, ""] + lines[head:])
    for i, m in enumerate(ms, 1):
        strat = sorted({s["finding"]["fix"]["strategy"] for s in m["sites"]})
        lines.append(f"  {i}/{n} {m['subject']}")
        lines.append(f"      {', '.join(strat)}; checkpatch: {m['checkpatch']}")
    lines.append("")
    lines.append(f"checkpatch.pl ({' '.join(checkpatch.FLAGS)}): " + ", ".join(f"{tally.get(k, 0)} {k}" for k in ("Success", "Warning", "Error")))
    lines.append("")
    lines.append(stat.rstrip("\n"))
    lines.append("")
    if base_commit:
        lines.append(f"base-commit: {base_commit}")
    lines.append("-- ")
    lines.append("atomic-janitor")
    lines.append("")
    return "\n".join(lines), b4


def _summary(tree, doc, trees, skipped, tally, notes, upstream, signoff, base_commit, dropped=(), rebased=None):
    """summary.txt: what this run wrote, per tree, and how to send or apply it."""
    n = sum(len(ms) for _t, ms in trees)
    preds = ", ".join(f"{p}()" for p in doc.get("predicates") or [])
    ver = doc["tree"].get("version")
    lines = [f"atomic-janitor: {n} patch(es) for {tree.name}" + (f" {ver}" if ver else "")
             + f", in {len(trees)} series (one per maintainer tree)", ""]
    lines += [message.fill(f"Predicates: {preds}; scope: {' '.join(doc.get('scope') or [])}"),
              f"base-commit: {base_commit or '(none: not a git tree and no kernel version)'}", ""]
    counts = collections.Counter(f["class"] for f in doc["findings"])
    patched_ids = {i for _t, ms in trees for m in ms for s in m["sites"] for i in s["ids"]}
    fixed = collections.Counter(f["class"] for f in doc["findings"] if f["id"] in patched_ids)
    lines.append("Findings by class (patched / found):")
    for cls in sorted(counts):
        lines.append(f"  {cls:24} {fixed.get(cls, 0):3} / {counts[cls]}")
    lines.append("")
    for t, ms in trees:
        tag = f"[PATCH {t['tag']}]" if t["tag"] else "[PATCH]"
        lines.append(f"{t['slug']}/  {len(ms)} patch(es), {tag}, {t['tree'] or t['list'] or 'no tree named'}")
        for m in ms:
            lines.append(f"    {os.path.basename(m['file'])}")
        to = _union(m["to"] for m in ms)
        lines += [f"    To: {a}" for a in to]
    lines.append("")
    if skipped:
        lines.append("Skipped (the fix did not apply; listed in manual-review.txt):")
        for files, reason in skipped:
            lines.append(message.fill(f"  {files[0]}: {reason}"))
        lines.append("")
    if dropped:
        lines.append("Assertions left as they are (the kernel already guarantees the condition):")
        lines += _dropped_lines(dropped) + [""]
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
        ok = [m for m, why in rebased or [] if why is None]
        lines.append(f"Rebased onto {upstream.name}" + (f" {upstream.version}" if upstream.version else "")
                     + f": {len(ok)} of {len(rebased or [])} patch(es) apply there, in upstream/<tree>/")
        for m, why in rebased or []:
            if why is not None:
                lines.append(message.fill(f"  does not apply: {m['file']}: {why}"))
        lines.append("")
    tl = ", ".join(f"{tally.get(k, 0)} {k}" for k in ("Success", "Warning", "Error"))
    lines.append(f"checkpatch.pl ({' '.join(checkpatch.FLAGS)}): {tl}")
    if not signoff and n:
        lines.append("  (no identity configured: no Signed-off-by; set SIGNOFF= or git config)")
    lines += notes
    lines.append("")
    lines += [line.format(base=base_commit or "<base>") for line in RECIPE]
    return "\n".join(lines)


# How each series leaves this machine (README "Sending a series"); D is one tree's directory.
RECIPE = [
    "Each directory is one series, with its cover letter. With D=<directory>:",
    "  review the mails:   git send-email --dry-run --to-cover --cc-cover D/*.patch",
    "  apply, in a git checkout of the kernel at {base}:",
    "                      git checkout -b aj {base}",
    "                      git am $(sed \"s|^|$PWD/D/|\" D/series)",
    "  then with b4 (0.12), on that branch:",
    "                      b4 prep -e {base}",
    "                      EDITOR=\"cp $PWD/D/b4-cover.txt\" b4 prep --edit-cover",
    "                      b4 prep --set-prefixes net-next     (only for a [PATCH net-next] series)",
    "                      b4 prep --auto-to-cc",
    "                      b4 send -o /tmp/out                (writes the mails, sends nothing)",
    "",
]
