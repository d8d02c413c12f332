# atomic-janitor: every target is a thin call into scripts/atomic_janitor (cli.py).
# `make help` lists the targets and variables; empty variables take the tool's defaults.
PYTHON     ?= /usr/bin/python3
KSRC       ?=
SCOPE      ?=
PREDICATES ?= in_atomic
J          ?=
FORMAT     ?=
O          ?=
KEEP_GOING ?=
COCCI      ?=
MODE       ?=
LIVE_BUGS  ?=
BASELINE   ?=

AJ := PYTHONPATH=$(CURDIR)/scripts $(PYTHON) -m atomic_janitor
AJ_ARGS = $(if $(KSRC),--ksrc "$(KSRC)") $(if $(SCOPE),--scope "$(SCOPE)") \
	  $(if $(PREDICATES),--predicates "$(PREDICATES)") $(if $(J),--jobs "$(J)") \
	  $(if $(FORMAT),--format "$(FORMAT)") $(if $(O),--output "$(O)") \
	  $(if $(filter 1 y yes,$(KEEP_GOING)),--keep-going) \
	  $(if $(LIVE_BUGS),--live-bugs "$(LIVE_BUGS)") $(if $(BASELINE),--baseline "$(BASELINE)")

.PHONY: help scan test test-fast bench bench-scan clean setup packages
scan:
	@$(AJ) scan $(AJ_ARGS)

# Every Debian package the tool, its tests and verify use (the list is .ci/packages).
setup: packages
	@$(AJ) setup $(if $(KSRC),--ksrc "$(KSRC)")

packages:
	@scripts/ensure-packages

# All three layers: unit + Coccinelle tests, real-tree tests, real-boot tests.
# Installs what the tests need first (as root; otherwise it names the command).
# The slowest tests are listed so a slower CI run shows where its time went.
# Two lanes at once (tests/conftest.py): the QEMU tests beside all the others.
test: packages
	@$(PYTHON) -m pytest -q -p no:cacheprovider --durations=25 \
		$$($(PYTHON) -c 'import xdist' 2>/dev/null && echo --dist loadgroup -n 2) tests

# Offline layer only (no kernel tree, no QEMU).
test-fast: packages
	@$(PYTHON) -m pytest -q -p no:cacheprovider -m "not realtree and not qemu" tests

bench: bench-scan bench-patches

bench-scan:
	@$(AJ) bench $(AJ_ARGS)

clean:
	rm -rf reports/*/ patches-generated/*/

-include qemu-verify/verify.mk
-include scripts/patches.mk

# One line a target and a variable (tests/scan/test_make_help.py checks it lists them all).
help:
	@echo 'Targets:'
	@echo '  scan            find the sites and classify them: reports/<tree>/ (installs coccinelle, linux-source-6.1)'
	@echo '  patches         write the series for the proven sites: patches-generated/<tree>/'
	@echo '  verify          apply a series to a pristine copy, compile-test, boot it in QEMU'
	@echo '  verify-all      verify + seed replay + mutants + demo'
	@echo '  verify-seed     replay the 2019 i2c commit: real core vs a core reverted to in_atomic()'
	@echo '  verify-mutants  two planted bugs that verify must catch'
	@echo '  verify-parse    re-parse a saved guest console offline (CONSOLE=file)'
	@echo '  demo            in_atomic() under a spinlock, with and without PREEMPT_COUNT, in QEMU'
	@echo '  test            all test layers (installs the test packages first)'
	@echo '  test-fast       offline tests only (no kernel tree, no QEMU)'
	@echo '  test-patches    the patch-series tests only'
	@echo '  bench           bench-scan + bench-patches'
	@echo '  bench-scan      scan timings against the coccicheck anchor'
	@echo '  bench-patches   time and size of the series'
	@echo '  bench-verify    cold/warm verify and boot-to-verdict times'
	@echo '  setup           install every package and unpack the default tree'
	@echo '  packages        install the Debian packages listed in .ci/packages'
	@echo '  clean           remove reports/ and patches-generated/ output'
	@echo '  help            this list'
	@echo 'Variables:'
	@echo '  KSRC=           kernel tree, module directory, or a version (6.12) of Debian linux-source'
	@echo '  SCOPE=          directories to scan (default: drivers/ sound/ include/drm/; a module dir: all of it)'
	@echo '  PREDICATES=     in_atomic (default), all, or a comma list of the family'
	@echo '  J=              parallel spatch jobs (default: all cores)'
	@echo '  FORMAT=         summary,json,sarif,html'
	@echo '  O=              reports root'
	@echo '  KEEP_GOING=1    go on past files spatch cannot parse'
	@echo '  LIVE_BUGS=only  print only the live bugs (sleeping branch on an atomic path today)'
	@echo '  BASELINE=       findings.json to mark new/unchanged/gone against (default: the previous scan)'
	@echo '  COCCI= MODE=    one rule and mode, as coccicheck takes them'
	@echo '  FROM= SIGNOFF=  patch author and Signed-off-by (default: git config)'
	@echo '  UPSTREAM=       newer tree (6.12): the series rebased there, and what no longer applies'
	@echo '  PATCHDIR=       patches root'
	@echo '  SERIES=         series directory for verify (or none)'
	@echo '  KDIR=           out-of-tree module directory for verify'
	@echo '  TIMEOUT=        QEMU timeout in seconds'
	@echo '  COMPILE_ONLY=   1: verify stops after the compile stage (compile matrix, no boot)'
	@echo '  CONSOLE=        saved console for verify-parse'
	@echo '  PYTHON=         the Python to run (default /usr/bin/python3)'
