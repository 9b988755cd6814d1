# khttpd: the HTTP core as a Linux kernel module (src/khttpd/), built against
# a Debian kernel's headers and tested in a qemu guest that boots that
# kernel (tests/kernel/).  `make module` builds build/khttpd.ko (and
# build/kecho.ko, mk/kecho.mk) for the newest kernel there (installed, or
# fetched into $(BUILD)/kernels: tests/kernel/kver.sh), or for
# KERNEL_VERSION=VER; `make check-kernel` fetches 6.1 and 6.12 and runs the
# kernel suite alone, on each.  Each kernel's modules are built in
# $(BUILD)/modules/VER/.  `make soak-kernel` soaks the module in one guest
# (not part of `make check`): SOAK_S seconds (default 600) of mixed load,
# file faults and load/unload cycles, every response checked, then the
# slab counts and the kernel log (tests/kernel/soak.sh, soak_kernel.py);
# KVER=VER picks the kernel (default: the newest installed).  Samples and
# a chart go to $(BUILD)/soak-kernel.

KERNEL_VERSIONS = $(shell BUILD=$(BUILD) tests/kernel/kver.sh --all 2>/dev/null)
# $(call kernel_cc,VER): the compiler VER's headers were built with.
kernel_cc = $(or $(shell BUILD=$(BUILD) tests/kernel/kver.sh --cc $(1) \
	2>/dev/null),gcc-12)
# The package that brings it: gcc-12 has x86_64-linux-gnu-gcc-12 too.
KERNEL_CC_PACKAGE := $(lastword $(subst -linux-gnu-, ,$(call kernel_cc)))

# Kbuild cannot reach ../http from M=, so the sources are staged together,
# one tree per kernel.
KMOD_SOURCES := $(wildcard src/khttpd/*.c src/khttpd/*.h src/khttpd/Kbuild \
	src/http/*.c src/http/*.h) mk/warnings.mk

# Debian 12 ships two kernel series, 6.1 and 6.12.  Their headers and
# images are not installed but unpacked into $(BUILD)/kernels by
# tests/kernel/fetch-kernels.sh: installed, the newest would become the
# kernel this machine boots.  What their packages would have brought: the
# kbuild tools' libraries, pahole (6.12's modules get BTF), depmod (kmod).
DEPS_CHECK += qemu-system-x86 busybox-static kmod libelf1 pahole cpio \
	      openssl xz-utils zstd $(KERNEL_CC_PACKAGE)
# The kernels fetched and the modules built while the integration suites
# wait on their timers (niced); then the guests, which take both CPUs.
CHECK_BESIDE += kernel-build
CHECK_SUITES += kernel

.PHONY: suite-kernel-build suite-kernel module modules-all soak-kernel

# $(call kbuild,VER,DIR): DIR's module built with Kbuild against VER's
# headers, W=1 and -Werror (in Kbuild): any warning fails the build.  Its
# recipe lines start with '+': $(MAKE) inside a $(call) is not seen as a
# sub-make, which would then lose the jobserver of a -j build.
kbuild = $(MAKE) -C $(shell BUILD=$(BUILD) tests/kernel/kver.sh --headers $(1)) \
	M=$(abspath $(2)) \
	CC=$(call kernel_cc,$(1)) W=1 modules

# Staged with cp -u -p, so that Kbuild rebuilds only what changed.  Kbuild
# takes every staged .c, so copies of files gone from src/ go first.
$(BUILD)/modules/%/khttpd.ko: $(KMOD_SOURCES)
	@d=$(@D)/khttpd; mkdir -p $$d/http; \
	for f in $$d/http/*.[ch] $$d/*.[ch]; do \
		case $$f in *.mod.c|*'*'*) continue ;; */http/*) src=src/http ;; \
		*) src=src/khttpd ;; esac; \
		[ -e "$$src/$${f##*/}" ] || rm -f "$$f" "$${f%.*}.o"; \
	done; \
	cp -u -p src/khttpd/*.[ch] src/khttpd/Kbuild mk/warnings.mk $$d/ && \
	cp -u -p src/http/*.[ch] $$d/http/
	+$(call kbuild,$*,$(@D)/khttpd)
	@cp $(@D)/khttpd/khttpd.ko $@

# The kernel is looked for when asked for, not at every make's start: kver.sh
# says why when there is none.
module:
	@v=$(or $(KERNEL_VERSION),$$(BUILD=$(BUILD) tests/kernel/kver.sh)) && \
	$(MAKE) --no-print-directory $(BUILD)/modules/$$v/khttpd.ko \
		$(BUILD)/modules/$$v/kecho.ko && \
	cp $(BUILD)/modules/$$v/khttpd.ko $(BUILD)/modules/$$v/kecho.ko \
		$(BUILD)/

# Both modules for every kernel installed: what the kernel suite tests.
modules-all: $(foreach v,$(KERNEL_VERSIONS),\
	$(BUILD)/modules/$(v)/khttpd.ko $(BUILD)/modules/$(v)/kecho.ko)

check-kernel: deps-check
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/run-suites.sh kernel-build kernel

suite-kernel-build:
	@BUILD=$(BUILD) MAKE="$(MAKE)" nice -n 19 tests/kernel/build-all.sh

suite-kernel: $(BUILD)/htstress
	@BUILD=$(BUILD) MAKE="$(MAKE)" HTSTRESS_BIN=$(abspath $(BUILD)/htstress) \
		tests/kernel/run-all.sh

# SOAK_S is shared with `make soak` (mk/soak.mk), whose default differs: only
# a value given on the command line or in the environment counts here.
SOAK_KERNEL_S = $(strip $(if $(filter command line environment,\
	$(origin SOAK_S)),$(SOAK_S),600))

# The kernel is chosen once the images are there.
soak-kernel: deps-check
	@BUILD=$(BUILD) tests/kernel/fetch-kernels.sh
	@v=$(or $(KVER),$$(BUILD=$(BUILD) tests/kernel/kver.sh)) && \
	$(MAKE) --no-print-directory $(BUILD)/modules/$$v/khttpd.ko \
		$(BUILD)/htstress && \
	SOAK_S=$(SOAK_KERNEL_S) KVER=$$v BUILD=$(BUILD) \
		HTSTRESS_BIN=$(abspath $(BUILD)/htstress) tests/kernel/soak.sh
