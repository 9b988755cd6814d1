# kecho: the CMWQ echo server (src/kecho/, a module built like khttpd.ko),
# its user-space twin user-echo-server and the echo-bench client
# (src/kecho/user/).  `make bench-echo` runs the experiment in the qemu guest.

KECHO_SOURCES := $(wildcard src/kecho/*.c src/kecho/*.h src/kecho/Kbuild)

CHECK_PROGRAMS += $(BUILD)/user-echo-server $(BUILD)/echo-bench
CHECK_SUITES += echo

.PHONY: suite-echo bench-echo

# For each kernel, as khttpd.ko (mk/kernel.mk).
$(BUILD)/modules/%/kecho.ko: $(KECHO_SOURCES)
	@mkdir -p $(@D)/kecho
	@cp -u -p $^ $(@D)/kecho/
	+$(call kbuild,$*,$(@D)/kecho)
	@cp $(@D)/kecho/kecho.ko $@

$(BUILD)/user-echo-server: $(call obj,$(BUILD),src/kecho/user/user_echo_server.c)
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/echo-bench: $(call obj,$(BUILD),src/kecho/user/echo_bench.c)
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS) -lm

# The echo test of the kernel suite, against the user-space twin on the host.
suite-echo: $(BUILD)/user-echo-server $(BUILD)/echo-bench
	@BUILD=$(BUILD) tests/kecho/run.sh

bench-echo: deps-build
	@scripts/install-deps.sh $(BENCH_KERNEL_DEPS) $(KERNEL_CC_PACKAGE) gnuplot-nox
	@BUILD=$(BUILD) tests/kernel/fetch-kernels.sh
	@$(MAKE) --no-print-directory module
	BUILD=$(BUILD) bench/kecho/run.sh
