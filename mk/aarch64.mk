# The coroutine context switch on AArch64: test_coro cross-compiled and
# linked statically, run under qemu-user (`make suite-aarch64`).

DEPS_CHECK += gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user

AARCH64_CC   ?= aarch64-linux-gnu-gcc
AARCH64_QEMU ?= qemu-aarch64
AARCH64_DIR  := $(BUILD)/aarch64
AARCH64_CORO_SRCS := tests/unit/test_coro.c tests/unit/harness.c \
		     src/sehttpd/coro.c src/sehttpd/arch/coro_switch_aarch64.S

$(AARCH64_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(BASEFLAGS) $(OPTFLAGS) -c -o $@ $<
$(AARCH64_DIR)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(BASEFLAGS) -c -o $@ $<

$(AARCH64_DIR)/test_coro: $(call obj,$(AARCH64_DIR),$(AARCH64_CORO_SRCS))
	$(AARCH64_CC) $(OPTFLAGS) -static -o $@ $^ $(LDLIBS) -lm

CHECK_PROGRAMS += $(AARCH64_DIR)/test_coro
CHECK_SUITES += aarch64

.PHONY: suite-aarch64 check-aarch64
suite-aarch64: $(AARCH64_DIR)/test_coro
	@$(AARCH64_QEMU) $<
check-aarch64: suite-aarch64
