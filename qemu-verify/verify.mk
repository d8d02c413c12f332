# make verify: apply a series to a pristine copy of KSRC, compile-test it, build a tinyconfig
# test kernel, boot it in QEMU and parse the KTAP (qemu-verify/verify.py).
#   make verify [SERIES=dir|none] [KSRC=tree] [J=n] [O=report dir] [TIMEOUT=s] [COMPILE_ONLY=1]
#   make verify-all     seed replay + both mutants + demo (+ SERIES when given)
#   make demo           in_atomic() under a spinlock, with and without PREEMPT_COUNT
#   make bench-verify   cold/warm verify and boot-to-verdict times
#   make verify-parse   re-parse the saved console offline (CONSOLE=file)
SERIES  ?=
KDIR    ?=
TIMEOUT ?=
CONSOLE ?=
COMPILE_ONLY ?=

QV := $(PYTHON) $(CURDIR)/qemu-verify
QV_ARGS = $(if $(KSRC),--ksrc "$(KSRC)") $(if $(KDIR),--kdir "$(KDIR)") \
	  $(if $(J),--jobs "$(J)") $(if $(O),--output "$(O)") \
	  $(if $(TIMEOUT),--timeout "$(TIMEOUT)") $(if $(SERIES),--series "$(SERIES)")
QV_RUN_ARGS = $(QV_ARGS) $(if $(filter 1 y yes,$(COMPILE_ONLY)),--compile-only)

.PHONY: verify verify-all verify-seed verify-mutants verify-parse demo bench-verify
verify: packages
	@$(QV) run $(QV_RUN_ARGS)

verify-all: packages
	@$(QV) all $(QV_ARGS)

verify-seed: packages
	@$(QV) seed $(QV_ARGS)

verify-mutants: packages
	@$(QV) mutants $(QV_ARGS)

verify-parse:
	@$(QV) parse "$(or $(CONSOLE),reports/$(notdir $(or $(KSRC),$(HOME)/.cache/atomic-janitor/linux-source-6.1))/verify/console.log)"

demo: packages
	@$(QV) demo $(QV_ARGS)

bench-verify: packages
	@$(QV) bench $(QV_ARGS)
