# khttpd: the HTTP core as a Linux kernel module (src/khttpd/), built against
# the installed Debian kernel's headers and tested in a qemu guest that boots
# that kernel (tests/kernel/).  `make module` builds build/khttpd.ko;
# `make check-kernel` runs the kernel suite alone.

KERNEL_VERSION = $(shell tests/kernel/kver.sh)
KERNEL_CC := $(or $(shell tests/kernel/kver.sh --cc 2>/dev/null),gcc-12)
KERNEL_HEADERS = /usr/src/linux-headers-$(KERNEL_VERSION)

# Kbuild cannot reach ../http from M=, so the sources are staged together.
KMOD_DIR := $(BUILD)/kmod
KMOD_FILES := \
	$(patsubst src/khttpd/%,$(KMOD_DIR)/%,\
		$(wildcard src/khttpd/*.c src/khttpd/*.h src/khttpd/Kbuild)) \
	$(patsubst src/http/%,$(KMOD_DIR)/http/%,\
		$(wildcard src/http/*.c src/http/*.h)) \
	$(KMOD_DIR)/warnings.mk

DEPS_CHECK += qemu-system-x86 busybox-static linux-image-amd64 \
	      linux-headers-amd64 cpio openssl $(KERNEL_CC)
CHECK_SUITES += kernel

.PHONY: suite-kernel

$(KMOD_DIR)/http/%: src/http/%
	@mkdir -p $(dir $@)
	@cp $< $@
$(KMOD_DIR)/warnings.mk: mk/warnings.mk
	@mkdir -p $(dir $@)
	@cp $< $@
$(KMOD_DIR)/%: src/khttpd/%
	@mkdir -p $(dir $@)
	@cp $< $@

# W=1 and -Werror (in Kbuild): any warning fails the build.  Kbuild takes
# every staged http/*.c, so copies of files gone from src/ go first.
$(BUILD)/khttpd.ko: $(KMOD_FILES)
	@for f in $(KMOD_DIR)/http/*.[ch] $(KMOD_DIR)/*.[ch]; do \
		case $$f in *.mod.c) continue ;; */http/*) src=src/http ;; \
		*) src=src/khttpd ;; esac; \
		[ -e "$$src/$${f##*/}" ] || rm -f "$$f" "$${f%.*}.o"; \
	done
	$(MAKE) -C $(KERNEL_HEADERS) M=$(abspath $(KMOD_DIR)) \
		CC=$(KERNEL_CC) W=1 modules
	@cp $(KMOD_DIR)/khttpd.ko $@

module: $(BUILD)/khttpd.ko

check-kernel: deps-check
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/run-suites.sh kernel

suite-kernel: $(BUILD)/htstress
	@BUILD=$(BUILD) MAKE="$(MAKE)" HTSTRESS_BIN=$(abspath $(BUILD)/htstress) \
		tests/kernel/run.sh
