"""verify-all pieces: the seed replay, the mutants, the article demo, the benchmark."""
import json
import os
import shutil
import subprocess
import sys
import time

from . import config as configmod
from . import initramfs as initmod
from . import verify
from .common import CACHE, DEFAULT_KSRC, HERE, VerifyError, default_jobs

SERIES = os.path.join(HERE, "series")
MUTANTS = {
    # name: (series dir, what the failure must name)
    "sleep-under-spinlock": ("mutant-sleep-under-spinlock", "scheduling-while-atomic"),
    "drop-irq-check": ("mutant-drop-irq-check", "late_shutdown_atomic_path: path=normal"),
    # no splat can show it: only the context recorder sees the claim fail
    "claim-sleepable": ("mutant-claim-sleepable", "__i2c_transfer(): violated: claimed sleepable"),
}


def _opts(a, **kw):
    base = dict(ksrc=a.ksrc or DEFAULT_KSRC, jobs=a.jobs or default_jobs(), timeout=a.timeout)
    base.update(kw)
    return verify.RunOptions(**base)


def _reports(a, name: str) -> str:
    """Report dir of one sub-run: under O= when given, else reports/<tree>/<name>."""
    if getattr(a, "output", None):
        return os.path.join(os.path.abspath(a.output), name)
    return os.path.join(verify.REPO, "reports", verify.tree_name(a.ksrc or DEFAULT_KSRC), name)


def run_expect_fail(opt) -> dict:
    """Run verify; return the result of a *failing* run, raise if it passed."""
    try:
        res = verify.run_verify(opt)
    except VerifyError as e:
        with open(os.path.join(opt.output, "result.json")) as f:
            res = json.load(f)
        res["_error"] = e.render()
        return res
    raise VerifyError(opt.label, "verify PASSED a series that must fail",
                      ["verify cannot fail on this case: the tests do not exercise it"])


def mutant(a, name: str) -> dict:
    d, must = MUTANTS[name]
    print(f"== mutant {name}: verify must fail naming {must!r}", flush=True)
    res = run_expect_fail(_opts(a, series=os.path.join(SERIES, d), label=f"mutant-{name}",
                                output=_reports(a, f"verify-mutant-{name}")))
    text = json.dumps(res)
    if must not in text:
        raise VerifyError("mutants", f"mutant {name} failed, but not for the expected reason "
                          f"({must!r} not named)", [f"see {_reports(a, 'verify-mutant-' + name)}"])
    print(f"== mutant {name}: verify failed as it must ({must})", flush=True)
    return res


def cmd_mutants(a) -> int:
    for name in sorted(MUTANTS):
        mutant(a, name)
    return 0


def seed(a) -> dict:
    """The 2019 i2c commit, replayed: the real 6.1 core vs a core reverted to
    in_atomic() || irqs_disabled(). Same recording-adapter tests on both."""
    print("== seed replay: real 6.1 i2c core (no patch)", flush=True)
    real = verify.run_verify(_opts(a, series="none", label="seed-real-core",
                                 output=_reports(a, "verify-seed-real")))
    print("== seed replay: i2c core reverted to the pre-2019 in_atomic() test", flush=True)
    bad = run_expect_fail(_opts(a, series=os.path.join(SERIES, "seed-revert"),
                                label="seed-reverted-core",
                                output=_reports(a, "verify-seed-revert")))
    case = "spinlock_running_normal_path"
    rp = real["guest"]["paths"].get(case, {})
    bp = bad["guest"].get("paths", {}).get(case, {})
    print(f"== seed replay, case {case}:", flush=True)
    print(f"   real core     : path={rp.get('taken')} splats={real['guest']['splats']['expected']}")
    print(f"   reverted core : path={bp.get('taken')} "
          f"missing splats={bad['guest'].get('splats', {}).get('missing')}")
    if rp.get("taken") != "normal" or bp.get("taken") != "atomic":
        raise VerifyError("seed", "the seed replay did not show the expected difference "
                          "(real: normal path + splat, reverted: atomic path, no splat)",
                          [f"see {_reports(a, 'verify-seed-real')} and "
                           f"{_reports(a, 'verify-seed-revert')}"])
    _scan_reverted(a)
    return {"real": rp, "reverted": bp}


def _scan_reverted(a):
    """make scan on the reverted work copy (when the scan stage is available)."""
    src = os.path.join(CACHE, "verify", verify.tree_name(a.ksrc or DEFAULT_KSRC), "src")
    mod = os.path.join(verify.REPO, "scripts", "atomic_janitor")
    if not os.path.isdir(mod):
        print("   scan: scripts/atomic_janitor not available, skipped")
        return
    out = os.path.join(CACHE, "verify", "seed-scan")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=os.path.join(verify.REPO, "scripts"))
    p = subprocess.run([sys.executable, "-m", "atomic_janitor", "scan", "--ksrc", src,
                        "--scope", "drivers/i2c/", "--output", out],
                       cwd=verify.REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    recs = []
    for root, _, files in os.walk(out):
        for fn in sorted(files):
            if fn == "findings.json":
                try:
                    with open(os.path.join(root, fn)) as f:
                        data = json.load(f)
                except (OSError, ValueError):
                    continue
                items = data.get("findings", []) if isinstance(data, dict) else data
                recs += [r for r in items if isinstance(r, dict)
                         and r.get("file") == "drivers/i2c/i2c-core.h"]
    print(f"   scan of the reverted tree (SCOPE=drivers/i2c/): exit {p.returncode}, "
          f"{len(recs)} finding(s) in drivers/i2c/i2c-core.h")
    for r in recs[:3]:
        print(f"     {r.get('file')}:{r.get('line')} {r.get('function') or r.get('macro')}: "
              f"{r.get('predicate')} form={r.get('form')} class={r.get('class')}")
    if p.returncode != 0 or not recs:
        raise VerifyError("seed", "make scan on the reverted tree did not report the "
                          "i2c_in_atomic_xfer_mode() site", [f"scan output: {out}"])


def cmd_seed(a) -> int:
    seed(a)
    return 0


def demo(a) -> dict:
    """The article: the same module on a PREEMPT_COUNT kernel and on a PREEMPT_NONE one."""
    plan = initmod.GuestPlan(userspace=False, i2c_tools=False, demo=True, record=False)
    seen = {}
    for profile, frags in (("verify", ()), ("demo-nocount", (configmod.DEMO_NOCOUNT,))):
        print(f"== demo on {profile} kernel", flush=True)
        res = verify.run_verify(_opts(a, series="none", profile=profile, extra_fragments=frags,
                                 plan=plan, compile_test=False, label=f"demo-{profile}",
                                 output=_reports(a, f"verify-demo-{profile}")))
        seen[profile] = res["guest"].get("demo")
    a1, a0 = seen["verify"], seen["demo-nocount"]
    print(f"DEMO: in_atomic() under spin_lock(): {a1['in_atomic_under_spinlock']} with "
          f"PREEMPT_COUNT (PREEMPT=y, DEBUG_ATOMIC_SLEEP=y), "
          f"{a0['in_atomic_under_spinlock']} without (PREEMPT_NONE, PREEMPT_DYNAMIC=n, "
          f"DEBUG_ATOMIC_SLEEP=n, PROVE_LOCKING=n)")
    if not (a1["in_atomic_under_spinlock"] == 1 and a0["in_atomic_under_spinlock"] == 0):
        raise VerifyError("demo", "the two kernels did not show 1 and 0", [])
    return seen


def cmd_demo(a) -> int:
    demo(a)
    return 0


def cmd_all(a) -> int:
    """verify-all: the series (when there is one), the seed replay, both mutants, the demo."""
    rc = 0
    if a.series:
        try:
            verify.run_verify(_opts(a, series=a.series, output=a.output))
        except VerifyError as e:
            print(e.render(), file=sys.stderr)
            rc = 1
    seed(a)
    cmd_mutants(a)
    demo(a)
    print("verify-all: seed replay, mutants and demo behaved as expected")
    return rc


def cmd_bench(a) -> int:
    """Cold verify (build dir removed), warm verify (one driver file changed), boot-to-verdict."""
    tree = verify.tree_name(a.ksrc or DEFAULT_KSRC)
    root = os.path.join(CACHE, "verify", tree)
    series = a.series or os.path.join(SERIES, "smoke")
    figures = {}
    # cold means nothing of an earlier bench run is reused: its build, its remembered
    # compile results and out-of-line objects, its modules and initramfs
    shutil.rmtree(os.path.join(root, "build-bench"), ignore_errors=True)
    shutil.rmtree(os.path.join(root, "modules-bench"), ignore_errors=True)
    for name in ("compile-memo-bench.json", "out-of-line-bench.json", "initramfs-bench.cpio"):
        try:
            os.unlink(os.path.join(root, name))
        except FileNotFoundError:
            pass
    t = time.monotonic()
    r = verify.run_verify(_opts(a, series=series, profile="bench", label="bench-cold",
                           output=_reports(a, "verify-bench")))
    figures["cold_verify_s"] = round(time.monotonic() - t, 1)
    figures["cold_build_s"] = r["_timings"].get("build")
    figures["boot_to_verdict_s"] = r["_timings"].get("boot_to_verdict")
    t = time.monotonic()
    r = verify.run_verify(_opts(a, series=os.path.join(SERIES, "smoke-v2"), profile="bench",
                           label="bench-warm", output=_reports(a, "verify-bench")))
    figures["warm_verify_one_driver_changed_s"] = round(time.monotonic() - t, 1)
    figures["warm_build_s"] = r["_timings"].get("build")
    figures["warm_boot_to_verdict_s"] = r["_timings"].get("boot_to_verdict")
    print("BENCH verify (2-core host, TCG):")
    for k in sorted(figures):
        print(f"  {k:<36} {figures[k]}")
    return 0
