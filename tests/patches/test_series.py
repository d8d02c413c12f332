"""make patches on the fixture tree: expected series, git am / patch -p1, checkpatch for real,
determinism, idempotence, bad input (stale findings, a fix that no longer applies)."""

import filecmp
import json
import os
import re
import shutil
import subprocess

import pytest

from patches_support import FIX, FROM, REPO, env_for, run_patches

EXPECTED = os.path.join(FIX, "expected", "linux-fixture")


def _series(out):
    d = os.path.join(out, "linux-fixture")
    return d, [l.strip() for l in open(os.path.join(d, "series")) if l.strip()]


def _files(d):
    return sorted(os.path.relpath(os.path.join(dp, f), d) for dp, _ds, fs in os.walk(d) for f in fs)


def test_fixture_series_is_the_expected_one(tmp_path, fxtree):
    out = str(tmp_path / "out")
    res = run_patches(str(tmp_path), fxtree, out, None, "--from", FROM)
    assert res.returncode == 0, res.stderr
    assert "7 patch(es), 0 skipped" in res.stdout
    d = os.path.join(out, "linux-fixture")
    got = _files(d)
    assert got == _files(EXPECTED)
    for name in got:
        with open(os.path.join(d, name), encoding="utf-8") as a, open(os.path.join(EXPECTED, name), encoding="utf-8") as b:
            assert a.read() == b.read(), name


def test_same_tree_same_series_byte_for_byte(tmp_path, fxtree):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert run_patches(str(tmp_path), fxtree, a, None, "--from", FROM).returncode == 0
    assert run_patches(str(tmp_path), fxtree, b, None, "--from", FROM).returncode == 0
    cmp = filecmp.dircmp(os.path.join(a, "linux-fixture"), os.path.join(b, "linux-fixture"))
    assert cmp.left_list == cmp.right_list
    assert not cmp.diff_files and not cmp.left_only and not cmp.right_only


def _pristine_git(tmp_path, fxtree, name):
    dst = tmp_path / name
    shutil.copytree(fxtree, dst)
    env = env_for(str(tmp_path))
    for argv in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m", "base"]):
        subprocess.run(["git", *argv], cwd=dst, env=env, check=True)
    return str(dst), env


def test_series_applies_with_git_am_and_patch(tmp_path, fxtree):
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out, None, "--from", FROM).returncode == 0
    d, names = _series(out)
    assert len(names) == 7
    repo, env = _pristine_git(tmp_path, fxtree, "am")
    res = subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.org", "am", "-q",
                          *[os.path.join(d, n) for n in names]], cwd=repo, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    log = subprocess.run(["git", "log", "--format=%an <%ae>|%s", "-n", "7"], cwd=repo, env=env,
                         capture_output=True, text=True).stdout.splitlines()
    assert all(l.startswith(FROM + "|") for l in log)
    plain = tmp_path / "plain"
    shutil.copytree(fxtree, plain)
    for n in names:
        with open(os.path.join(d, n), "rb") as fh:
            r = subprocess.run(["patch", "-p1", "-s", "--no-backup-if-mismatch"], cwd=plain, stdin=fh,
                               capture_output=True)
        assert r.returncode == 0, (n, r.stdout, r.stderr)
    cmp = subprocess.run(["diff", "-r", "-x", ".git", repo, str(plain)], capture_output=True, text=True)
    assert cmp.returncode == 0, cmp.stdout


def _checkpatch(tree, patch):
    res = subprocess.run(["perl", "scripts/checkpatch.pl", "-q", "--terse", "--no-summary", "--showfile",
                          patch], cwd=tree, capture_output=True, text=True)
    return [l for l in res.stdout.splitlines() if l.strip()]


def test_checkpatch_clean_without_identity_only_signoff_missing(tmp_path, fxtree):
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out, None, "--from", FROM).returncode == 0
    d, names = _series(out)
    for n in names:
        text = open(os.path.join(d, n)).read()
        assert "Signed-off-by:" not in text
        msgs = _checkpatch(fxtree, os.path.join(d, n))
        assert msgs, n       # the missing sign-off is reported ...
        assert all("Missing Signed-off-by" in m for m in msgs), (n, msgs)   # ... and nothing else
    cover = open(os.path.join(d, "summary.txt")).read()
    assert "7 Success, 0 Warning, 0 Error" in cover
    assert "no identity configured: no Signed-off-by" in cover


def test_checkpatch_clean_with_signoff(tmp_path, fxtree):
    out = str(tmp_path / "out")
    res = run_patches(str(tmp_path), fxtree, out, None, "--from", FROM, "--signoff", FROM)
    assert res.returncode == 0, res.stderr
    d, names = _series(out)
    for n in names:
        text = open(os.path.join(d, n)).read()
        assert f"\nSigned-off-by: {FROM}\n" in text
        assert _checkpatch(fxtree, os.path.join(d, n)) == [], n


def test_no_identity_no_signoff_and_placeholder_author(tmp_path, fxtree):
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out).returncode == 0
    d, names = _series(out)
    for n in names:
        text = open(os.path.join(d, n)).read()
        assert "Signed-off-by" not in text


def test_stale_findings_refused_and_old_output_kept(tmp_path, fxtree):
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out, None, "--from", FROM).returncode == 0
    marker = os.path.join(out, "linux-fixture", "series")
    before = open(marker).read()
    with open(os.path.join(fxtree, "drivers/misc/fxgfp/fxgfp.c"), "a") as fh:
        fh.write("/* edited after the scan */\n")
    res = run_patches(str(tmp_path), fxtree, out, None, "--from", FROM)
    assert res.returncode == 1
    assert res.stderr.startswith("CRITICAL: ") and "is stale: drivers/misc/fxgfp/fxgfp.c" in res.stderr
    assert "Traceback" not in res.stderr
    assert open(marker).read() == before
    assert sorted(x for x in os.listdir(out) if not x.startswith(".")) == ["linux-fixture"]
    assert [x for x in os.listdir(out) if x.startswith(".staging")] == []


def test_fix_that_no_longer_applies_is_skipped_others_produced(tmp_path, fxtree):
    # fxsas_init.c holds callers only: not hashed in findings.json `files`, so the scan is not
    # stale, but the thread-gfp fix no longer finds its call in fxsas_scan_work().
    p = os.path.join(fxtree, "drivers/scsi/fxsas/fxsas_init.c")
    text = open(p).read().replace("\tfxsas_notify_event(ha, 2);\n", "\tha->pending++;\n")
    open(p, "w").write(text)
    out = str(tmp_path / "out")
    res = run_patches(str(tmp_path), fxtree, out, None, "--from", FROM)
    assert res.returncode == 0, res.stderr
    assert "6 patch(es), 1 skipped" in res.stdout
    skip = [l for l in res.stderr.splitlines() if "skipped" in l]
    assert len(skip) == 1 and "fxsas_scan_work()" in skip[0] and "no longer applies" in skip[0]
    d, names = _series(out)
    assert not any("fxsas" in n for n in names)
    assert not os.path.exists(os.path.join(d, "linux-scsi"))    # its only patch was skipped
    cover = open(os.path.join(d, "summary.txt")).read()
    assert "Skipped (the fix did not apply" in cover and "fxsas_init.c" in cover
    assert "fxsas_scan_work()" in open(os.path.join(d, "manual-review.txt")).read()


def test_upstream_notes_sites_gone_or_changed(tmp_path, fxtree):
    up = tmp_path / "up" / "linux-newer"
    shutil.copytree(fxtree, up)
    os.unlink(up / "drivers/misc/fxgfp/fxgfp.c")
    p = up / "drivers/usb/fxusb/fxusb.c"
    p.write_text(p.read_text().replace("\tif (in_atomic())\n\t\treturn -EWOULDBLOCK;\n", ""))
    h = up / "drivers/scsi/fxsas/fxsas.h"
    text = h.read_text().split("\n", 1)
    h.write_text(text[0] + "\n/*\n * moved down in the newer tree\n */\n" + text[1])
    out = str(tmp_path / "out")
    res = run_patches(str(tmp_path), fxtree, out, None, "--from", FROM, "--upstream", str(up))
    assert res.returncode == 0, res.stderr
    cover = open(os.path.join(out, "linux-fixture", "summary.txt")).read()
    assert "drivers/misc/fxgfp/fxgfp.c:fxgfp_alloc_buf(): in_atomic(): gone: file removed" in cover
    assert "drivers/usb/fxusb/fxusb.c:fxusb_read_regs(): in_atomic(): changed: fxusb_read_regs() no longer calls in_atomic()" in cover
    assert "drivers/scsi/fxsas" not in cover.split("Sites in the newer tree")[1].split("(every other")[0]
    # the series rebased there: the two patches whose sites are gone or changed are named with
    # the reason, the others apply (fxsas.h moved down three lines: the offset is absorbed)
    flat = " ".join(cover.split())
    assert "Rebased onto linux-newer 6.1.0: 5 of 7 patch(es) apply there, in upstream/<tree>/" in flat
    assert "does not apply: gregkh-char-misc/0002-misc-fxgfp-Remove-in_atomic-usage.patch: gone: " \
           "drivers/misc/fxgfp/fxgfp.c removed" in flat
    assert "does not apply: linux-usb/0001-usb-fxusb-Remove-in_atomic-usage.patch: changed: fxusb_read_regs() " \
           "no longer calls in_atomic()" in flat
    upd = os.path.join(out, "linux-fixture", "upstream")
    assert sorted(os.listdir(upd)) == ["drm-drm-misc", "gregkh-char-misc", "linux-i2c", "linux-scsi", "netdev-net-next"]
    sas = open(os.path.join(upd, "linux-scsi", "0001-scsi-fxsas-Replace-in_interrupt-usage.patch")).read()
    base = open(os.path.join(out, "linux-fixture", "linux-scsi", "0001-scsi-fxsas-Replace-in_interrupt-usage.patch")).read()
    hunks = lambda t: re.findall(r"^@@ -(\d+)", t.split("+++ b/drivers/scsi/fxsas/fxsas.h")[1].split("diff --git")[0],  # noqa: E731
                                 re.M)
    assert hunks(base) and [int(h) for h in hunks(sas)] == [int(h) + 3 for h in hunks(base)]
    # each rebased series applies in order to the newer tree with git am
    repo, env = _pristine_git(tmp_path, str(up), "up-am")
    for sub in sorted(os.listdir(upd)):
        names = [l.strip() for l in open(os.path.join(upd, sub, "series")) if l.strip()]
        res = subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.org", "am", "-q",
                              *[os.path.join(upd, sub, n) for n in names]], cwd=repo, env=env,
                             capture_output=True, text=True)
        assert res.returncode == 0, (sub, res.stderr)


def test_patched_tree_rescan_finds_no_fixed_site_and_emits_nothing(tmp_path, fxtree):
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out, None, "--from", FROM).returncode == 0
    d, names = _series(out)
    for n in names:
        with open(os.path.join(d, n), "rb") as fh:
            subprocess.run(["patch", "-p1", "-s"], cwd=fxtree, stdin=fh, check=True)
    rep = str(tmp_path / "rep")
    env = env_for(str(tmp_path))
    res = subprocess.run(["/usr/bin/python3", "-m", "atomic_janitor", "scan", "--ksrc", fxtree,
                          "--output", rep, "--keep-going"], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    doc = json.load(open(os.path.join(rep, "linux-fixture", "findings.json")))
    left = {(f["file"], f["function"] or f["macro"]) for f in doc["findings"]}
    fixed = {(f["file"], f["function"]) for f in json.load(open(os.path.join(FIX, "findings.json")))["findings"]
             if f["fix"]}
    assert left and not (left & fixed)
    # Classification would find only the manual-review sites again: nothing to emit.
    res = run_patches(str(tmp_path), fxtree, str(tmp_path / "again"),
                      os.path.join(rep, "linux-fixture", "findings.json"), "--from", FROM)
    assert res.returncode == 0, res.stderr
    # no empty "[PATCH 0/0]" series: one line that says why, and where to read on
    assert "no series written" in res.stdout and "0 proven" in res.stdout, res.stdout
    assert "need manual review" in res.stdout and "summary.txt" in res.stdout
    assert not os.path.exists(os.path.join(str(tmp_path / "again"), "linux-fixture"))


def test_tested_stamp_comes_from_verify_result_only(tmp_path, fxtree):
    """No "Tested" line before verify has run; afterwards each patch says what verify
    established for it (tested / compile-tested only), and nothing for an untested one."""
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out, None, "--from", FROM).returncode == 0
    d, names = _series(out)
    texts = {n: open(os.path.join(d, n), encoding="utf-8").read() for n in names}
    assert not any("Tested in QEMU" in t or "Compile-tested only" in t for t in texts.values())
    patches = []
    verdicts = ["tested", "compile-tested-only", "untested"]
    for i, n in enumerate(names):
        t = texts[n]
        subj = re.search(r"^Subject: \[PATCH[^\]]*\] (.*)$", t, re.M).group(1)
        files = sorted(re.findall(r"^\+\+\+ b/(\S+)", t, re.M))
        patches.append({"index": i + 1, "file": n, "subject": subj, "files": files,
                        "verdict": verdicts[i % 3], "executed": 7 if i % 3 == 0 else None})
    reports = tmp_path / "reports"
    vdir = reports / "linux-fixture" / "verify"
    vdir.mkdir(parents=True)
    (vdir / "result.json").write_text(json.dumps({"schema": 1, "verdict": "pass", "patches": patches}))
    out2 = str(tmp_path / "out2")
    res = run_patches(str(tmp_path), fxtree, out2, None, "--from", FROM, "--reports", str(reports))
    assert res.returncode == 0, res.stderr
    d2, names2 = _series(out2)
    assert names2 == names
    for i, n in enumerate(names2):
        body = " ".join(open(os.path.join(d2, n), encoding="utf-8").read().split("\n---\n")[0].split())
        v = verdicts[i % 3]
        assert ("patched code executed 7 times" in body) == (v == "tested"), (n, v)
        assert ("Compile-tested only" in body) == (v == "compile-tested-only"), (n, v)


def _scan(tmp_path, tree, rep, *extra):
    env = dict(env_for(str(tmp_path)), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    res = subprocess.run(["/usr/bin/python3", "-m", "atomic_janitor", "scan", "--ksrc", tree,
                          "--output", rep, "--keep-going", *extra], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return env, res


def test_patches_follow_the_last_scan(tmp_path, fxtree):
    """scan -> patches as one flow: no KSRC, PREDICATES or SCOPE repeated; the tree, the
    predicates and the scope come from the scan. The scan ends by naming the next command."""
    rep = str(tmp_path / "rep")
    env, res = _scan(tmp_path, fxtree, rep, "--predicates", "all")
    assert "patchable -> make patches" in res.stdout, res.stdout
    out = str(tmp_path / "out")
    p = subprocess.run(["/usr/bin/python3", "-m", "atomic_janitor.patches", "--reports", rep, "--output", out,
                        "--from", FROM], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert os.path.isdir(os.path.join(out, "linux-fixture")), p.stdout
    # the Makefile passes PREDICATES only when the user gives it
    n = subprocess.run(["make", "-n", "-s", "patches", "O=" + rep], cwd=REPO, capture_output=True, text=True)
    assert "--predicates" not in n.stdout and "--reports" in n.stdout, n.stdout
    n = subprocess.run(["make", "-n", "-s", "patches", "PREDICATES=all"], cwd=REPO, capture_output=True, text=True)
    assert '--predicates "all"' in n.stdout


def test_patches_scan_again_when_the_tree_changed(tmp_path, fxtree):
    rep = str(tmp_path / "rep")
    env, _ = _scan(tmp_path, fxtree, rep)
    doc = json.load(open(os.path.join(rep, "linux-fixture", "findings.json")))
    rel = sorted(doc["files"])[0]
    with open(os.path.join(fxtree, rel), "a") as fh:
        fh.write("\n/* edited after the scan */\n")
    p = subprocess.run(["/usr/bin/python3", "-m", "atomic_janitor.patches", "--reports", rep,
                        "--output", str(tmp_path / "out"), "--from", FROM], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert f"changed since the scan ({rel}" in p.stderr and "scanning linux-fixture again" in p.stderr
    again = json.load(open(os.path.join(rep, "linux-fixture", "findings.json")))
    with open(os.path.join(fxtree, rel), "rb") as fh:
        import hashlib
        assert again["files"][rel] == hashlib.sha256(fh.read()).hexdigest()


def test_one_series_per_maintainer_tree(tmp_path, fxtree):
    """MAINTAINERS decides: the most specific section with a T: tree (netdev's net-next, with
    its [PATCH net-next]; char-misc for two drivers of two maintainers), else the subsystem
    list; each directory is a series of its own, numbered from 1, with a cover letter that
    has To:, Cc: and base-commit:."""
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out, None, "--from", FROM).returncode == 0
    d = os.path.join(out, "linux-fixture")
    dirs = sorted(x for x in os.listdir(d) if os.path.isdir(os.path.join(d, x)))
    assert dirs == ["drm-drm-misc", "gregkh-char-misc", "linux-i2c", "linux-scsi", "linux-usb", "netdev-net-next"]
    for sub in dirs:
        names = [l.strip() for l in open(os.path.join(d, sub, "series")) if l.strip()]
        cover = open(os.path.join(d, sub, "0000-cover-letter.patch")).read()
        hdr = cover.split("\n\n", 1)[0]
        assert "\nTo: " in hdr and "\nCc: " in hdr, sub
        assert f"0/{len(names)}] " in hdr and "\nbase-commit: v6.1\n" in cover, sub
        links = [l for n in names for l in open(os.path.join(d, sub, n)).read().split("\n---\n")[0].splitlines()
                 if l.startswith("Link:")]
        assert links in ([], ["Link: https://lwn.net/Articles/274695/"]), (sub, links)   # at most once
        for i, n in enumerate(names, 1):
            assert n.startswith("%04d-" % i)
            assert f" {i}/{len(names)}] " in open(os.path.join(d, sub, n)).read().split("\n\n", 1)[0]
    net = open(os.path.join(d, "netdev-net-next", "0000-cover-letter.patch")).read()
    assert "Subject: [PATCH net-next 0/1] wifi: fxairo: Remove context guessing" in net
    assert "Tree: git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net-next.git" in net
    assert "\nLink: https://lwn.net/Articles/274695/\n" in open(
        os.path.join(d, "gregkh-char-misc", "0001-misc-fxassert-Replace-in_atomic-usage.patch")).read()
    misc = open(os.path.join(d, "gregkh-char-misc", "0000-cover-letter.patch")).read()
    assert "Subject: [PATCH 0/2] misc: Remove context guessing" in misc
    assert "Bob Assert <bob@example.org>" in misc and "Gina Gfp <gina@example.org>" in misc
    # the top-level series is every tree's patches, in the order verify applies them
    top = [l.strip() for l in open(os.path.join(d, "series")) if l.strip()]
    assert len(top) == 7 and {t.split("/")[0] for t in top} == set(dirs)


@pytest.mark.skipif(not shutil.which("b4"), reason="b4 not installed (Debian package b4)")
def test_each_series_goes_through_the_documented_recipe(tmp_path, fxtree):
    """summary.txt's recipe, run as written: git am of the series file on a checkout at the
    base-commit, then b4 prep/send -o; b4 writes the mails with the series' prefix."""
    out = str(tmp_path / "out")
    assert run_patches(str(tmp_path), fxtree, out, None, "--from", FROM).returncode == 0
    d = os.path.join(out, "linux-fixture")
    repo, env = _pristine_git(tmp_path, fxtree, "b4")
    env = dict(env, GIT_AUTHOR_NAME="Jane Janitor", GIT_AUTHOR_EMAIL="jane@example.org",
               GIT_COMMITTER_NAME="Jane Janitor", GIT_COMMITTER_EMAIL="jane@example.org")
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True)  # noqa: E731
    git("tag", "v6.1")
    git("config", "user.name", "Jane Janitor")
    git("config", "user.email", "jane@example.org")
    git("config", "sendemail.smtpserver", "smtp.example.org")   # b4 send -o wants an SMTP setup
    summary = open(os.path.join(d, "summary.txt")).read()
    assert "git am $(sed \"s|^|$PWD/D/|\" D/series)" in summary and "b4 send -o" in summary
    for sub, prefix, n in (("gregkh-char-misc", "[PATCH", 2), ("netdev-net-next", "[PATCH net-next", 1)):
        git("checkout", "-q", "-b", "aj-" + sub, "v6.1")
        sd = os.path.join(d, sub)
        sh = (f'set -e; git am -q $(sed "s|^|{sd}/|" {sd}/series); b4 prep -e v6.1; '
              f'EDITOR="cp {sd}/b4-cover.txt" b4 prep --edit-cover; '
              + ("b4 prep --set-prefixes net-next; " if "net-next" in prefix else "")
              + f"b4 prep --auto-to-cc; b4 send --no-sign -o {tmp_path}/mails-{sub}")
        res = subprocess.run(["sh", "-c", sh], cwd=repo, env=env, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        mails = sorted(os.listdir(tmp_path / f"mails-{sub}"))
        assert len(mails) == (n + 1 if n > 1 else 1), mails        # b4 sends a lone patch without cover
        subjects = [next(l for l in open(tmp_path / f"mails-{sub}" / m) if l.startswith("Subject:"))
                    for m in mails]
        assert all(prefix in s for s in subjects), subjects
        if n > 1:
            assert "misc: Remove context guessing" in subjects[0]


def test_live_bug_fix_names_the_commit_that_added_the_test(tmp_path):
    """Issue 16: in a git checkout, a live-bug fix carries Fixes: with the commit that added
    the guess (git log -S), before Cc: stable; the other patches carry none."""
    tree = tmp_path / "src" / "meta"
    shutil.copytree(os.path.join(REPO, "tests", "fixtures", "metamorphic", "tree"), tree)
    bug = (tree / "drivers" / "meta" / "meta_bug.c").read_text()
    (tree / "drivers" / "meta" / "meta_bug.c").unlink()
    env = env_for(str(tmp_path))
    git = lambda *a: subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.org", *a],  # noqa: E731
                                    cwd=tree, env=env, check=True, capture_output=True, text=True)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "meta: first version")
    (tree / "drivers" / "meta" / "meta_bug.c").write_text(bug)
    git("add", "-A")
    git("commit", "-q", "-m", "meta: sleep outside interrupts")
    sha = git("rev-parse", "HEAD").stdout.strip()
    rep = str(tmp_path / "rep")
    env, _ = _scan(tmp_path, str(tree), rep, "--predicates", "all", "--scope", "drivers")
    out = tmp_path / "out"
    p = subprocess.run(["/usr/bin/python3", "-m", "atomic_janitor.patches", "--reports", rep, "--output", str(out),
                        "--from", FROM], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    patches = {}
    for dp, _ds, fs in os.walk(out):
        for f in fs:
            if f.endswith(".patch") and not f.startswith("0000"):
                patches[f] = open(os.path.join(dp, f)).read().split("\n---\n")[0]
    bug_fix = [t for t in patches.values() if "meta_bug_irqoff" in t]
    assert len(bug_fix) == 1, list(patches)
    # one patch for the driver: meta_bug_irqoff()'s test came with the second commit, meta_do()'s
    # and meta_select()'s with the first (the oldest commit that added each)
    first = git("rev-list", "--max-parents=0", "HEAD").stdout.strip()
    trailers = [l for l in bug_fix[0].splitlines() if re.match(r"^(Fixes|Link|Cc): ", l)]
    assert sorted(t for t in trailers if t.startswith("Fixes:")) == sorted([
        f'Fixes: {sha[:12]} ("meta: sleep outside interrupts")', f'Fixes: {first[:12]} ("meta: first version")'])
    assert trailers[-2:] == ["Link: https://lwn.net/Articles/274695/", "Cc: stable@vger.kernel.org"]
    assert all(("Fixes:" in t) == ("Cc: stable" in t) for t in patches.values())
    cover = next(open(os.path.join(dp, f)).read() for dp, _ds, fs in os.walk(out) for f in fs
                 if f == "0000-cover-letter.patch")
    assert f"base-commit: {sha}" in cover and "no Fixes: tag" not in cover
