"""make patches on Debian's 6.1 tree, PREDICATES=all: a real series, checkpatch-clean, each
patch compiling on its own (every touched file rebuilt after every patch), and a re-scan of
the patched tree finding none of the fixed sites."""

import json
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "analysis"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "patches"))
from patch_compile import verify_compile  # noqa: E402
from patches_support import run_patches  # noqa: E402
from realtree_scan import scan  # noqa: E402

pytestmark = pytest.mark.realtree

FROM = "Jane Janitor <jane@example.org>"
# The sites the analysis proves on 6.1 (tests/realtree/test_classify_all_predicates.py), by file.
EXPECTED_FILES = {
    "drivers/net/wwan/t7xx/t7xx_state_monitor.c",           # sleepable-proven gfp selector
    "drivers/staging/rtl8723bs/os_dep/osdep_service.c",     # atomic-proven gfp selector
    "drivers/firmware/arm_sdei.c",                          # same-condition assertions
    "drivers/irqchip/irq-gic-v4.c",
    "drivers/scsi/scsi_lib.c",
    "drivers/scsi/qla2xxx/qla_init.c",
}


@pytest.fixture(scope="module")
def series(tree61, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("patches61")
    findings = tmp / "findings.json"
    findings.write_text(json.dumps(scan("all")))
    out = tmp / "out"
    res = run_patches(str(tmp), tree61.root, str(out), str(findings), "--from", FROM)
    assert res.returncode == 0, res.stderr
    d = out / "linux-source-6.1"
    names = [l.strip() for l in (d / "series").read_text().splitlines() if l.strip()]
    return {"dir": d, "names": names, "stdout": res.stdout,
            "text": {n: (d / n).read_text() for n in names}}


def _touched(text):
    return re.findall(r"^\+\+\+ b/(\S+)", text, re.M)


def test_a_real_series_with_the_proven_sites(series):
    touched = {f for t in series["text"].values() for f in _touched(t)}
    assert EXPECTED_FILES <= touched, sorted(EXPECTED_FILES - touched)
    assert len(series["names"]) >= len({os.path.dirname(f) for f in EXPECTED_FILES})


def test_checkpatch_clean_and_tally_in_cover_letter(series):
    assert "checkpatch: " in series["stdout"]
    assert ", 0 Warning, 0 Error;" in series["stdout"], series["stdout"]
    cover = (series["dir"] / "summary.txt").read_text()
    m = re.search(r"^checkpatch\.pl .*: (\d+) Success, 0 Warning, 0 Error$", cover, re.M)
    assert m and int(m.group(1)) == len(series["names"]), cover


def test_subjects_are_in_each_subsystems_style(series):
    subjects = {}
    for n, t in series["text"].items():
        subj = re.search(r"^Subject: \[PATCH[^\]]*\] (.*)$", t, re.M).group(1)
        subjects[_touched(t)[0]] = subj
        prefix = subj.rsplit(": ", 1)[0]
        parts = [p.strip() for p in re.split(r"[:/]", prefix)]
        assert len(parts) == len(set(parts)), f"repeated prefix part: {subj}"
    assert subjects["drivers/staging/rtl8723bs/os_dep/osdep_service.c"].startswith("staging: rtl8723bs: ")
    assert subjects["drivers/net/wwan/t7xx/t7xx_state_monitor.c"].startswith("net: wwan: t7xx: ")
    assert subjects["drivers/irqchip/irq-gic-v4.c"].startswith("irqchip/gic-v4: ")
    assert subjects["drivers/scsi/scsi_lib.c"].startswith("scsi: core: ")


def test_every_patch_compiles_after_every_patch(series, tree61, tmp_path):
    """Bisectable, through verify's own compile stage (make verify COMPILE_ONLY=1): each
    touched file rebuilt with W=1 after each patch, in the test kernel's config or the
    compile matrix (allmodconfig, cross compilers); no error, no new warning, and nothing
    left "not compile-tested"."""
    res = verify_compile(tree61.root, str(series["dir"]), str(tmp_path / "verify"))
    assert res["verdict"] == "pass", res.get("error")
    entries = [e for r in res["patches"] for e in r["compile"]]
    assert [r["compiled"] for r in res["patches"]] == ["ok"] * len(series["names"]), \
        [(r["file"], r["compiled"], r["compile"]) for r in res["patches"]]
    assert not [e for e in entries if not e["objects"]], "not compile-tested"
    assert not [e for e in entries if e["new_warnings"]]
    built = {e["file"] for e in entries}
    touched = {f for t in series["text"].values() for f in _touched(t) if f.endswith(".c")}
    assert touched <= built
    assert {e.get("config") for e in entries} >= {"x86_64-allmodconfig", "arm64-defconfig"}


def test_patched_tree_rescans_clean(series, tree61, tmp_path):
    """The fixed sites are gone from a scan of the patched tree (copied, never the cache's)."""
    touched = sorted({f for t in series["text"].values() for f in _touched(t)})
    root = tmp_path / "linux-source-6.1"
    for rel in touched:
        dst = root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes((open(os.path.join(tree61.root, rel), "rb")).read())
    for name in ("Makefile", "Kconfig", "MAINTAINERS"):
        (root / name).write_bytes(open(os.path.join(tree61.root, name), "rb").read())
    for n in series["names"]:
        p = subprocess.run(["patch", "-p1", "-s", "-i", str(series["dir"] / n)], cwd=root,
                           capture_output=True, text=True)
        assert p.returncode == 0, (n, p.stdout, p.stderr)
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "scripts"),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    out = tmp_path / "reports"
    res = subprocess.run([sys.executable, "-m", "atomic_janitor", "scan", "--ksrc", str(root), "--predicates",
                          "all", "--output", str(out), "--keep-going", "--format", "json"],
                         env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads((out / root.name / "findings.json").read_text())
    fixed = [f for f in scan("all")["findings"] if f["file"] in touched and f["fix"]
             and f["class"] not in ("manual-review",)]
    again = {(f["file"], f["function"], f["expression"]) for f in doc["findings"]}
    left = [(f["file"], f["function"], f["expression"]) for f in fixed
            if (f["file"], f["function"], f["expression"]) in again]
    assert not left, left


def test_one_series_per_maintainer_tree_on_61(series):
    """Issue 13: the tree's MAINTAINERS T: entries cut the series; netdev's fixes and cleanups
    carry their tree in the subject; every cover letter is a mail with To/Cc and base-commit."""
    d = series["dir"]
    dirs = {n.split("/")[0] for n in series["names"]}
    assert {"netdev-net-next", "gregkh-staging", "tip-tip", "jejb-scsi"} <= dirs, sorted(dirs)
    t7xx = next(t for n, t in series["text"].items() if "t7xx" in n)
    assert re.search(r"^Subject: \[PATCH net-next( \d+/\d+)?\] net: wwan: t7xx: ", t7xx, re.M)
    for sub in dirs:
        cover = (d / sub / "0000-cover-letter.patch").read_text()
        hdr = cover.split("\n\n", 1)[0]
        assert "\nTo: " in hdr and "\nCc: " in hdr, sub
        assert re.search(r"^base-commit: v6\.1\.\d+$", cover, re.M), sub


def test_assertions_the_kernel_guarantees_are_listed_not_swapped(series):
    """at91rm9200_timer_interrupt() is an IRQF_TIMER handler: genirq runs it with IRQs off and
    never threads it, so its WARN_ON_ONCE(!irqs_disabled()) cannot fire; the tip series' cover
    letter names it instead of carrying a swap."""
    touched = {f for t in series["text"].values() for f in _touched(t)}
    assert "drivers/clocksource/timer-atmel-st.c" not in touched
    cover = (series["dir"] / "tip-tip" / "0000-cover-letter.patch").read_text()
    body = " ".join(cover.split("Not in this series:")[1].split("Tree:")[0].split())
    assert "drivers/clocksource/timer-atmel-st.c:" in body and "at91rm9200_timer_interrupt()" in body
    assert "arm_sdei" not in body       # another tree: the summary lists it
    summary = " ".join((series["dir"] / "summary.txt").read_text().split())
    assert "_ipi_mask_cpu()" in summary.split("Assertions left as they are")[1]


@pytest.mark.skipif(not os.path.isdir("/usr/src") or not any(n.startswith("linux-source-6.12") for n in os.listdir("/usr/src")),
                    reason="linux-source-6.12 not installed (UPSTREAM=6.12 installs it)")
def test_rebased_onto_612_names_what_does_not_apply(tree61, tmp_path):
    """Issue 13: UPSTREAM=6.12 writes the series rebased onto 6.12 and names each patch that
    does not apply there with the reason: mdp5_smp_dump() no longer tests drm_can_sleep()."""
    findings = tmp_path / "findings.json"
    findings.write_text(json.dumps(scan("all")))
    out = tmp_path / "out"
    res = run_patches(str(tmp_path), tree61.root, str(out), str(findings), "--from", FROM, "--upstream", "6.12")
    assert res.returncode == 0, res.stderr
    summary = " ".join((out / "linux-source-6.1" / "summary.txt").read_text().split())
    m = re.search(r"Rebased onto linux-source-6\.12 6\.12\.\d+: (\d+) of (\d+) patch\(es\) apply there", summary)
    assert m and 0 < int(m.group(1)) < int(m.group(2)), summary
    assert re.search(r"does not apply: drm-drm-misc/\S+\.patch: changed: mdp5_smp_dump\(\) no longer calls "
                     r"drm_can_sleep\(\)", summary), summary
    up = out / "linux-source-6.1" / "upstream"
    assert sum(len((up / d / "series").read_text().split()) for d in os.listdir(up)) == int(m.group(1))
