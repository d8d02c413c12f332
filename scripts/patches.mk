# make patches: build patches-generated/<tree>/ from reports/<tree>/findings.json (issue 5).
# FROM="Name <mail>" (default: git config --global), SIGNOFF="Name <mail>" (default: git
# config --global; never invented), UPSTREAM=<newer tree> (the series rebased there,
# in upstream/<tree>/; summary.txt names what does not apply and why; UPSTREAM=6.12 is Debian's), O= is the reports root the scan wrote to, PATCHDIR= the patches root.
FROM     ?=
SIGNOFF  ?=
UPSTREAM ?=
PATCHDIR ?=

AJ_PATCHES := PYTHONPATH=$(CURDIR)/scripts $(PYTHON) -m atomic_janitor patches
# PREDICATES and SCOPE only when the user gives them (then they are checked against the
# scan); otherwise the scan's own, read from findings.json, as is the tree of the last scan.
given = $(filter command line environment,$(origin $(1)))
AJ_PATCHES_ARGS = $(if $(KSRC),--ksrc "$(KSRC)") \
	$(if $(call given,PREDICATES),--predicates "$(PREDICATES)") \
	$(if $(SCOPE),--scope "$(SCOPE)") $(if $(O),--reports "$(O)") \
	$(if $(PATCHDIR),--output "$(PATCHDIR)") $(if $(FROM),--from "$(FROM)") \
	$(if $(SIGNOFF),--signoff "$(SIGNOFF)") $(if $(UPSTREAM),--upstream "$(UPSTREAM)")

.PHONY: patches bench-patches test-patches
patches: packages
	@$(AJ_PATCHES) $(AJ_PATCHES_ARGS)

# Time and size of the series (run `make scan` with the same variables first).
bench-patches:
	@$(AJ_PATCHES) $(AJ_PATCHES_ARGS) --bench

test-patches:
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests/patches
