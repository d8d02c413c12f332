"""Offline unit tests of the stages: config fragment, QEMU command and runner (with a fake
QEMU), initramfs, work copy + apply, compile-unit planning, kprobe targets."""
import os
import shlex
import stat
import subprocess
import textwrap

import pytest

from qemu_verify import apply, boot, build, common, compile as comp, config, initramfs, probes

# ---------------------------------------------------------------- config
DESIGN_7_3 = ["64BIT", "PRINTK", "BUG", "TTY", "SERIAL_8250", "SERIAL_8250_CONSOLE",
              "BINFMT_ELF", "BINFMT_SCRIPT", "BLK_DEV_INITRD", "DEVTMPFS", "DEVTMPFS_MOUNT",
              "PROC_FS", "SYSFS", "MODULES", "MODULE_UNLOAD", "DEBUG_KERNEL", "PREEMPT",
              "DEBUG_ATOMIC_SLEEP", "PROVE_LOCKING", "I2C", "I2C_CHARDEV"]


def test_fragment_names_everything_design_7_3_lists():
    frag = config.read_fragments([config.FRAGMENT])
    for sym in DESIGN_7_3:
        assert frag.get(sym) == "y", sym
    assert frag["I2C_STUB"] == "m"          # module-only: depends on m
    assert frag["KPROBES"] == "y"           # the context recorder (modules/aj_ctx.c)


def test_demo_fragment_turns_preempt_count_off():
    both = config.read_fragments([config.FRAGMENT, config.DEMO_NOCOUNT])
    assert both["PREEMPT_NONE"] == "y"
    for sym in ("PREEMPT", "PREEMPT_DYNAMIC", "DEBUG_ATOMIC_SLEEP", "PROVE_LOCKING",
                "PREEMPT_COUNT"):
        assert both[sym] == "n", sym


def test_parse_fragment_and_scripts_config_args():
    f = config.parse_fragment("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n"
                              "CONFIG_D=\"x y\"\nCONFIG_E=16\nnoise\n")
    assert f == {"A": "y", "B": "n", "C": "m", "D": "x y", "E": "16"}
    assert config.scripts_config_args(f) == [
        "--enable", "A", "--disable", "B", "--module", "C", "--set-str", "D", "x y",
        "--set-val", "E", "16"]


def test_missing_symbols_named():
    bad = config.missing_symbols({"A": "y", "B": "m", "C": "n"}, {"A": "y", "B": "y", "C": "y"})
    assert bad == ["CONFIG_B: wanted m, got y", "CONFIG_C: wanted n, got y"]
    assert config.missing_symbols({"X": "y"}, {}) == ["CONFIG_X: wanted y, got unset"]


def _kconfig_tree(root):
    for rel, text in (("Kconfig", "config A\n\tbool\n"), ("drivers/Kconfig", "config B\n\tbool\n"),
                      ("drivers/b.c", "int b;\n"), ("kernel/configs/tiny.config", "CONFIG_A=y\n"),
                      ("scripts/kconfig/conf.c", "int main(void) { return 0; }\n"),
                      ("arch/x86/configs/tiny.config", "CONFIG_X=y\n")):
        os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)


def test_tinyconfig_key_follows_what_tinyconfig_reads(tmp_path):
    """Kconfig files, the kconfig tool and the tiny fragments change the key; a C file does not."""
    root = str(tmp_path / "src")
    _kconfig_tree(root)
    key = config._tinyconfig_key(root)
    with open(os.path.join(root, "drivers/b.c"), "a") as f:
        f.write("int c;\n")
    assert config._tinyconfig_key(root) == key
    for rel in ("drivers/Kconfig", "scripts/kconfig/conf.c", "kernel/configs/tiny.config",
                "arch/x86/configs/tiny.config"):
        with open(os.path.join(root, rel), "a") as f:
            f.write("# changed\n")
        new = config._tinyconfig_key(root)
        assert new != key, rel
        key = new


def test_tinyconfig_is_run_once_then_reused(tmp_path, monkeypatch):
    root = str(tmp_path / "src")
    _kconfig_tree(root)
    calls = []

    def fake_run(argv, log=None, **kw):
        if argv[0] == "make":
            calls.append(argv[-1])
            build = next(a[2:] for a in argv if a.startswith("O="))
            with open(os.path.join(build, ".config"), "w") as f:
                f.write("CONFIG_A=y\n")
        return subprocess.CompletedProcess(argv, 0, "gcc 12\n" if argv[0] != "make" else "")
    monkeypatch.setattr(config, "run", fake_run)
    log = common.Log(str(tmp_path / "log" / "build.log"))
    for profile in ("one", "two"):
        build = str(tmp_path / f"build-{profile}")
        os.makedirs(build)
        config._tinyconfig(root, build, 1, log)
        with open(os.path.join(build, ".config")) as f:
            assert f.read() == "CONFIG_A=y\n"
    assert calls == ["tinyconfig"]          # the second profile copied the first one's result
    with open(os.path.join(root, "Kconfig"), "a") as f:
        f.write("config C\n\tbool\n")
    config._tinyconfig(root, str(tmp_path / "build-two"), 1, log)
    assert calls == ["tinyconfig", "tinyconfig"]


def test_matrix_objects_are_compiled_once_per_configuration():
    from qemu_verify import matrix, verify
    x86, arm = matrix.CONFIGS[0], matrix.CONFIGS[1]
    got = verify._per_config([(arm, ["b.o"]), (x86, ["z.o"]), (arm, ["a.o", "b.o"]), (x86, ["c.o"])])
    assert got == [(x86, ["c.o", "z.o"]), (arm, ["a.o", "b.o"])]


# ---------------------------------------------------------------- boot
def test_qemu_argv_is_defensive_and_pasteable():
    argv = boot.qemu_argv("/k/bzImage", "/k/initrd img.cpio")
    assert argv[0] == "qemu-system-x86_64"
    for flag in ("-nographic", "-no-reboot"):
        assert flag in argv
    assert "isa-debug-exit,iobase=0xf4,iosize=0x04" in argv
    append = argv[argv.index("-append") + 1]
    assert "panic=-1" in append.split() and "console=ttyS0" in append.split()
    assert "accel=tcg" in argv[argv.index("-machine") + 1]
    assert shlex.split(common.quote(argv)) == argv     # the echo pastes back to the same argv


@pytest.mark.parametrize("status,code", [(1, 0), (3, 1), (7, 3), (0, None), (2, None),
                                         (None, None), (-9, None)])
def test_decode_exit(status, code):
    assert boot.decode_exit(status) == code


def _fake_qemu(tmp_path, body):
    p = tmp_path / "fake-qemu"
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(0o755)
    cfg = boot.qemu_config()
    cfg["qemu"] = str(p)
    return cfg


def test_boot_carries_the_exit_code(tmp_path):
    cfg = _fake_qemu(tmp_path, "echo 'KTAP version 1'; echo '1..1'; echo 'ok 1 a'; exit 1")
    log = common.Log(str(tmp_path / "log"))
    r = boot.boot("k", "i", str(tmp_path / "console.log"), 30, log, cfg=cfg)
    assert (r.verdict_code, r.timed_out) == (0, False)
    assert (tmp_path / "console.log").read_text().endswith("ok 1 a\n")
    assert "fake-qemu" in (tmp_path / "log").read_text()      # the command was echoed


def test_boot_hard_timeout_kills_a_hung_guest(tmp_path):
    cfg = _fake_qemu(tmp_path, "echo booting; exec sleep 60")
    r = boot.boot("k", "i", str(tmp_path / "c.log"), 1.5, common.Log(str(tmp_path / "l")),
                  cfg=cfg)
    assert r.timed_out and r.verdict_code is None
    assert "timed out" in r.describe()
    assert "booting" in r.console


def test_a_boot_that_stalls_before_userspace_is_tried_once_more(tmp_path, monkeypatch):
    # The flake CI saw: the kernel stops printing before it runs /init; the next boot works.
    monkeypatch.setattr(boot, "STALL_SECS", 1.0)
    mark = tmp_path / "booted-once"
    cfg = _fake_qemu(tmp_path, f"if [ -e {mark} ]; then echo 'Run /init as init process'; echo 'ok 1 a'; exit 1; fi\n"
                               f"touch {mark}; echo 'Running RCU-tasks wait API self tests'; exec sleep 60")
    log = common.Log(str(tmp_path / "l"))
    r = boot.boot("k", "i", str(tmp_path / "c.log"), 30, log, cfg=cfg)
    assert r.verdict_code == 0 and not r.stalled
    assert "the first stalled before userspace" in r.describe()
    assert "retrying once" in (tmp_path / "l").read_text()


def test_a_kernel_that_always_stalls_still_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(boot, "STALL_SECS", 1.0)
    cfg = _fake_qemu(tmp_path, "echo 'Running RCU-tasks wait API self tests'; exec sleep 60")
    r = boot.boot("k", "i", str(tmp_path / "c.log"), 30, common.Log(str(tmp_path / "l")), cfg=cfg)
    assert r.stalled and r.verdict_code is None
    assert r.describe().startswith("stalled before userspace")


def test_a_quiet_guest_after_userspace_is_left_to_the_timeout(tmp_path, monkeypatch):
    # Tests in the guest may be silent for long: only the kernel's own boot is watched.
    monkeypatch.setattr(boot, "STALL_SECS", 1.0)
    cfg = _fake_qemu(tmp_path, "echo 'Run /init as init process'; sleep 3; echo 'ok 1 a'; exit 1")
    r = boot.boot("k", "i", str(tmp_path / "c.log"), 30, common.Log(str(tmp_path / "l")), cfg=cfg)
    assert r.verdict_code == 0 and r.retried_after is None


def test_reboot_without_verdict_is_no_verdict(tmp_path):
    cfg = _fake_qemu(tmp_path, "echo 'reboot: Restarting system'; exit 0")
    r = boot.boot("k", "i", str(tmp_path / "c.log"), 30, common.Log(str(tmp_path / "l")),
                  cfg=cfg)
    assert r.verdict_code is None and "without a verdict" in r.describe()


def test_missing_qemu_is_a_clear_error(tmp_path):
    cfg = boot.qemu_config()
    cfg["qemu"] = "/nonexistent/qemu-system-x86_64"
    with pytest.raises(common.VerifyError) as e:
        boot.boot("k", "i", str(tmp_path / "c"), 5, common.Log(str(tmp_path / "l")), cfg=cfg)
    assert "apt-get install qemu-system-x86" in e.value.render()


# ---------------------------------------------------------------- initramfs
def test_guest_script_plan_and_verdict():
    plan = initramfs.GuestPlan(probes=[("p1_stub_xfer", "i2c_stub:stub_xfer")])
    s = initramfs.guest_script(plan)
    assert "echo '1..4'" in s
    assert "functionality=0xf7f0000" in s and "chip_addr=0x50,0x51" in s
    assert "insmod /lib/aj/aj_ctx.ko targets=p1_stub_xfer=i2c_stub:stub_xfer " in s
    # the recorder loads before the patched modules (their init counts) and dumps at the end
    assert s.index("aj_ctx.ko") < s.index("KTAP version 1") or \
        s.index("aj_ctx.ko") < s.index("aj-i2c-stub-test")
    assert s.rstrip().splitlines().index("hits") < s.rstrip().splitlines().index(
        "echo $FAIL > /sys/module/aj_exit/parameters/code")
    assert "/sys/module/aj_exit/parameters/code" in s
    # a kernel message never lands inside a user line: every user line is a printk record,
    # from before the first line printed (and devkmsg is not rate-limited)
    lines = s.splitlines()
    first_echo = next(i for i, l in enumerate(lines) if l.lstrip().startswith("echo"))
    redirect = lines.index("if [ -c /dev/kmsg ]; then exec > /dev/kmsg 2>&1;")
    assert redirect < first_echo
    assert lines.index("mount -t devtmpfs devtmpfs /dev 2>/dev/null") < redirect
    assert "printk.devkmsg=on" in boot.qemu_argv("bzImage", "initrd")[-1]
    assert "sed " not in s          # block-buffered: would cut lines into records mid-line
    assert s.index("aj_exit.ko") < s.index("KTAP version 1")
    assert initramfs.guest_script(initramfs.GuestPlan(userspace=False, i2c_tools=False,
                                                      record=False)).count("1..1") == 1


def test_guest_without_kmsg_goes_on_printing(tmp_path):
    # the redirect is guarded: a guest kernel without /dev/kmsg keeps its shell (and its
    # KTAP on the console) instead of panicking when init exits
    lines = initramfs.guest_script(initramfs.GuestPlan()).splitlines()
    i = lines.index("if [ -c /dev/kmsg ]; then exec > /dev/kmsg 2>&1;")
    snippet = "\n".join(lines[i:i + 2]).replace("/dev/kmsg ", str(tmp_path / "kmsg") + " ")
    r = subprocess.run(["/bin/busybox", "sh", "-c", snippet + "\necho 'KTAP version 1'"],
                       capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["# aj: no /dev/kmsg: kernel messages may cut user lines",
                                     "KTAP version 1"]
    # and with it, every later line goes there
    (tmp_path / "kmsg").write_text("")
    snippet = snippet.replace("-c ", "-f ")
    r = subprocess.run(["/bin/busybox", "sh", "-c", snippet + "\necho 'KTAP version 1'"],
                       capture_output=True, text=True)
    assert r.stdout == "" and (tmp_path / "kmsg").read_text() == "KTAP version 1\n"


def test_device_workload_is_a_suite_of_its_own():
    plan = initramfs.GuestPlan(userspace=False, i2c_tools=False, demo=False, record=False,
                               devices=[("virtio-rng", ["cat /dev/hwrng | head -c 64 > /dev/null"])])
    s = initramfs.guest_script(plan)
    assert "echo '1..1'" in s
    assert "echo 'ok 1 device_virtio-rng'; else echo 'not ok 1 device_virtio-rng'; fail; fi" in s
    assert "set -e; cat /dev/hwrng | head -c 64 > /dev/null" in s


def test_the_suite_that_ends_at_shutdown_comes_last():
    """aj_i2c_record's last case runs during the reboot: a device suite after it would be
    read as nested in it (seen with the soft-RoCE workload: "expected test number 4, got 3")."""
    plan = initramfs.GuestPlan(devices=[("soft_roce", ["true"])])
    assert plan.suites()[-1] == "aj_i2c_record"
    assert plan.suites().index("device_soft_roce") == len(plan.suites()) - 2
    s = initramfs.guest_script(plan)
    assert s.index("device_soft_roce") < s.index("insmod /lib/aj/aj_i2c_record.ko")


def test_i2cdetect_expected_layout():
    out = initramfs.i2cdetect_expected().splitlines()
    assert out[0].startswith("     0  1  2")
    assert out[1] == "00:          " + "-- " * 13
    assert out[6].startswith("50: 50 51 -- ")
    assert out[8] == "70: " + "-- " * 8 + "   " * 8


def test_cpio_is_deterministic_and_readable(tmp_path):
    def make():
        c = initramfs.Cpio()
        c.file("bin/x", b"hello", 0o755)
        c.symlink("bin/sh", "busybox")
        c.chardev("dev/console", 5, 1)
        return c.bytes()
    a, b = make(), make()
    assert a == b and a.startswith(b"070701")
    p = tmp_path / "x.cpio"
    p.write_bytes(a)
    r = subprocess.run(["cpio", "-it", "--quiet"], stdin=open(p, "rb"), stdout=subprocess.PIPE,
                       text=True)
    assert r.returncode == 0
    assert sorted(r.stdout.split()) == ["bin", "bin/sh", "bin/x", "dev", "dev/console"]


# ---------------------------------------------------------------- apply
PATCH = textwrap.dedent("""\
    From 0 Mon Sep 17 00:00:00 2001
    From: t <t@example.invalid>
    Subject: [PATCH 1/1] drv: change
     it (folded)

    body
    ---
    diff --git a/drivers/x/x.c b/drivers/x/x.c
    --- a/drivers/x/x.c
    +++ b/drivers/x/x.c
    @@ -1,5 +1,5 @@
     int f(void)
     {
    -\treturn 0;
    +\treturn 1;
     }

    diff --git a/drivers/x/new.c b/drivers/x/new.c
    new file mode 100644
    --- /dev/null
    +++ b/drivers/x/new.c
    @@ -0,0 +1 @@
    +int g;
    --\x20
    2.39.5
    """)


def _tree(tmp_path):
    k = tmp_path / "ksrc"
    (k / "drivers" / "x").mkdir(parents=True)
    (k / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n")
    (k / "Kconfig").write_text("")
    (k / "drivers" / "x" / "x.c").write_text("int f(void)\n{\n\treturn 0;\n}\n\n")
    return k


def test_parse_patch(tmp_path):
    p = tmp_path / "0001-x.patch"
    p.write_text(PATCH)
    pt = apply.parse_patch(str(p), 1)
    assert pt.subject == "drv: change it (folded)"
    assert pt.files == ["drivers/x/new.c", "drivers/x/x.c"]
    assert pt.created == ["drivers/x/new.c"]
    assert pt.changed_lines["drivers/x/x.c"] == [3]
    assert pt.changed_lines["drivers/x/new.c"] == [1]     # the "-- " signature is not a hunk line


def test_work_copy_never_touches_ksrc(tmp_path):
    k = _tree(tmp_path)
    before = (k / "drivers/x/x.c").read_text()
    ino = os.stat(k / "drivers/x/x.c").st_ino
    p = tmp_path / "0001-x.patch"
    p.write_text(PATCH)
    log = common.Log(str(tmp_path / "log"))
    wt = apply.WorkTree(str(k), str(tmp_path / "work"), log)
    assert wt.prepare() == "copied"
    ok, msg = wt.apply(apply.parse_patch(str(p), 1))
    assert ok, msg
    assert (k / "drivers/x/x.c").read_text() == before
    assert os.stat(k / "drivers/x/x.c").st_ino == ino
    assert not (k / "drivers/x/new.c").exists()
    assert "return 1" in open(os.path.join(wt.src, "drivers/x/x.c")).read()
    # next run: the touched files come back from KSRC, the created one goes away
    assert wt.prepare() == "reused"
    assert open(os.path.join(wt.src, "drivers/x/x.c")).read() == before
    assert not os.path.exists(os.path.join(wt.src, "drivers/x/new.c"))
    # and a patch that does not apply is refused whole, with git's reason
    ok, msg = wt.apply(apply.parse_patch(str(p), 1))
    assert ok
    ok, msg = wt.apply(apply.parse_patch(str(p), 2))
    assert not ok and msg


def test_a_kbuild_line_for_the_probes_goes_into_the_copy_only(tmp_path):
    """An inlined patched function: its object gets CFLAGS_<obj> += OUT_OF_LINE in the
    copy's Makefile (Kbuild when the directory has one), never in KSRC, whose inodes the
    copy shares; the next run puts KSRC's file back."""
    k = _tree(tmp_path)
    (k / "drivers/x/Makefile").write_text("obj-y += x.o\nCFLAGS_x.o := -I$(src)\n")
    before = (k / "drivers/x/Makefile").read_text()
    wt = apply.WorkTree(str(k), str(tmp_path / "work"), common.Log(str(tmp_path / "log")))
    wt.prepare()
    rel = build.kbuild_file(wt.src, "drivers/x/x.o")
    assert rel == "drivers/x/Makefile"
    line = build.out_of_line_line("drivers/x/x.o")
    assert line.startswith("CFLAGS_x.o += ") and "-fno-inline-functions-called-once" in line
    wt.append_line(rel, line)
    wt.append_line(rel, line)                 # once is enough: a rerun adds nothing
    copy = open(os.path.join(wt.src, rel)).read()
    assert copy == before + line + "\n"      # += keeps the Makefile's own -I$(src)
    assert (k / "drivers/x/Makefile").read_text() == before
    assert wt.prepare() == "reused"
    assert open(os.path.join(wt.src, rel)).read() == before
    (k / "drivers/x/Kbuild").write_text("obj-y += x.o\n")
    assert build.kbuild_file(str(k), "drivers/x/x.o") == "drivers/x/Kbuild"


def test_a_device_program_goes_into_the_initramfs_with_its_libraries(tmp_path):
    """devices.json "programs": the soft-RoCE workload runs iproute2's rdma in the guest."""
    from qemu_verify import preflight
    rdma = preflight.where("rdma")
    if not rdma:
        pytest.skip("iproute2 is not installed (make setup installs it)")
    plan = initramfs.GuestPlan(userspace=False, i2c_tools=False, demo=False, record=False,
                               programs={"rdma": rdma})
    out = initramfs.build_initramfs(str(tmp_path / "i.cpio"), plan, {}, {})
    r = subprocess.run(["cpio", "-it", "--quiet"], stdin=open(out, "rb"),
                       stdout=subprocess.PIPE, text=True, check=True)
    names = set(r.stdout.split())
    assert "usr/bin/rdma" in names and "bin/ip" in names
    for lib in initramfs.ldd_libs(rdma):
        assert lib.lstrip("/") in names, lib


def test_not_a_kernel_tree(tmp_path):
    with pytest.raises(common.VerifyError) as e:
        apply.check_ksrc(str(tmp_path))
    r = e.value.render()
    assert r.startswith("CRITICAL: tree: KSRC is not a kernel tree") and "KDIR=" in r


def test_list_series_skips_cover_letter(tmp_path):
    for n in ("0000-cover-letter.patch", "0002-b.patch", "0001-a.patch", "notes.txt"):
        (tmp_path / n).write_text("")
    assert [os.path.basename(p) for p in apply.list_series(str(tmp_path))] == \
        ["0001-a.patch", "0002-b.patch"]
    with pytest.raises(common.VerifyError):
        apply.list_series(str(tmp_path / "nope"))


# ---------------------------------------------------------------- compile
def _kbuild_tree(tmp_path):
    k = tmp_path / "k"
    (k / "drivers" / "foo").mkdir(parents=True)
    (k / "drivers" / "Makefile").write_text("obj-$(CONFIG_FOO_BUS) += foo/\n")
    (k / "drivers" / "foo" / "Makefile").write_text(
        "obj-$(CONFIG_FOO) += foo.o\nfoo-objs := foo-core.o foo-extra.o\n"
        "obj-$(CONFIG_FOO_STUB) += foo-stub.o\n")
    (k / "drivers" / "foo" / "Kconfig").write_text(
        "menuconfig FOO_BUS\n\tbool \"bus\"\n\tdepends on HAS_IOMEM\n"
        "config FOO\n\ttristate \"foo\"\n\tdepends on FOO_BUS && !BAR\n"
        "config FOO_STUB\n\ttristate \"stub\"\n\tdepends on m\n"
        "config HAS_IOMEM\n\tdef_bool y\nconfig BAR\n\tbool\n")
    (k / "drivers" / "foo" / "foo.h").write_text("static inline int h(void) { return 0; }\n")
    (k / "drivers" / "foo" / "foo-core.c").write_text('#include "foo.h"\n')
    (k / "drivers" / "foo" / "foo-extra.c").write_text("\n")
    (k / "drivers" / "foo" / "foo-stub.c").write_text("\n")
    return str(k)


def test_plan_unit_finds_symbols_and_dependencies(tmp_path):
    comp.kconfig_index.cache_clear()
    k = _kbuild_tree(tmp_path)
    u = comp.plan_unit(k, "drivers/foo/foo-core.c")
    assert u.objects == ["drivers/foo/foo-core.o"]
    assert u.symbols == {"FOO": "y", "FOO_BUS": "y", "HAS_IOMEM": "y"}   # not BAR (negated)
    u = comp.plan_unit(k, "drivers/foo/foo-stub.c")
    assert u.symbols["FOO_STUB"] == "m" and u.module == "foo-stub"
    h = comp.plan_unit(k, "drivers/foo/foo.h")
    assert h.header and h.objects == ["drivers/foo/foo-core.o"]
    assert comp.plan_unit(k, "arch/arm/x.c").reason.startswith("other architecture")
    assert comp.plan_unit(k, "Documentation/x.rst").reason == "not C"
    settled = comp.settle(u, {"FOO_STUB": "n"})
    assert not settled.objects and "CONFIG_FOO_STUB" in settled.reason


def test_new_warnings_and_compiler_output():
    out = ("drivers/foo/foo.c:10:5: warning: no previous prototype for 'f' "
           "[-Wmissing-prototypes]\n"
           "drivers/foo/foo.c:20:1: warning: unused variable 'x' [-Wunused-variable]\n"
           "drivers/bar/bar.c:1:1: warning: other file\n")
    w = build.warnings_of(out, "drivers/foo/foo.c")
    assert len(w) == 2 and all("line" not in x for x in w)
    assert comp.new_warnings([w[0]], w) == [w[1]]
    assert comp.new_warnings(w, w) == []
    err = "  CC x.o\ndrivers/foo/foo.c:3:9: error: expected ';' before '}' token\nmake: *** [x] Error 1\n"
    assert build.first_error(err) == "drivers/foo/foo.c:3:9: error: expected ';' before '}' token"


# ---------------------------------------------------------------- probes
C_SRC = textwrap.dedent("""\
    static int helper(int a)
    {
    \treturn a;
    }

    /* comment */
    static s32 stub_xfer(struct i2c_adapter *adap, u16 addr,
    \tchar rw)
    {
    \tint i;

    \treturn helper(i);
    }
    static DEFINE_SPINLOCK(lock);
    """)


def test_enclosing_function():
    lines = C_SRC.splitlines()
    assert probes.enclosing_function(lines, 3) == "helper"
    assert probes.enclosing_function(lines, 12) == "stub_xfer"
    assert probes.enclosing_function(lines, 14) is None
    assert probes.enclosing_function(lines, 5) is None


def test_header_inline_is_chased_to_c_callers(tmp_path):
    d = tmp_path / "drivers" / "i2c"
    d.mkdir(parents=True)
    (d / "core.h").write_text("static inline bool mode(void)\n{\n\treturn 1;\n}\n\n"
                              "static inline int lock_helper(void)\n{\n\treturn mode();\n}\n")
    (d / "base.c").write_text('#include "core.h"\nint transfer(void)\n{\n\treturn mode();\n}\n\n'
                              "int top(void)\n{\n\treturn lock_helper();\n}\n")
    got = probes.functions_for_patch(str(tmp_path), {"drivers/i2c/core.h": [3]})
    assert got == {"drivers/i2c/base.c": ["transfer", "top"]}
    assert probes.event_name(2, "i2c-x") == "p2_i2c_x"


def test_accel_is_tcg_without_a_successful_kvm_probe(tmp_path, monkeypatch):
    monkeypatch.delenv("AJ_ACCEL", raising=False)
    log = common.Log(str(tmp_path / "l"))
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        assert boot.pick_accel(log) == "tcg"
    monkeypatch.setenv("AJ_ACCEL", "kvm")
    assert boot.pick_accel(log) == "kvm"


def test_reports_do_not_depend_on_the_cache_state():
    from qemu_verify import verify
    assert verify.stable("linux-source-6.1 (6.1.192), work copy reused, 2 patch(es)") == \
        verify.stable("linux-source-6.1 (6.1.192), work copy copied, 2 patch(es)")
    assert verify.stable("25 required symbols survived (reused)") == \
        "25 required symbols survived"
