# atomic-janitor: every target is a thin call into scripts/atomic_janitor (cli.py).
# Variables mean what DESIGN.md section 8 says; empty ones take the tool's defaults.
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

AJ := PYTHONPATH=$(CURDIR)/scripts $(PYTHON) -m atomic_janitor
AJ_ARGS = $(if $(KSRC),--ksrc "$(KSRC)") $(if $(SCOPE),--scope "$(SCOPE)") \
	  $(if $(PREDICATES),--predicates "$(PREDICATES)") $(if $(J),--jobs "$(J)") \
	  $(if $(FORMAT),--format "$(FORMAT)") $(if $(O),--output "$(O)") \
	  $(if $(filter 1 y yes,$(KEEP_GOING)),--keep-going)

.PHONY: scan test test-fast bench bench-scan clean setup packages
scan:
	@$(AJ) scan $(AJ_ARGS)

# Every Debian package the tool, its tests and verify use (the list is .ci/packages).
setup: packages
	@$(AJ) setup $(if $(KSRC),--ksrc "$(KSRC)")

packages:
	@scripts/ensure-packages

# All three layers: unit + Coccinelle tests, real-tree tests, real-boot tests.
# Installs what the tests need first (as root; otherwise it names the command).
test: packages
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests

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
