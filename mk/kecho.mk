# kecho: the CMWQ echo server (src/kecho/, a module built like khttpd.ko),
# its user-space twin user-echo-server and the echo-bench client
# (src/kecho/user/).  `make bench-echo` runs the experiment in the qemu guest.

KECHO_DIR := $(BUILD)/kecho
KECHO_FILES := $(patsubst src/kecho/%,$(KECHO_DIR)/%,\
	$(wildcard src/kecho/*.c src/kecho/*.h src/kecho/Kbuild))


CHECK_PROGRAMS += $(BUILD)/user-echo-server $(BUILD)/echo-bench
CHECK_SUITES += echo

.PHONY: suite-echo bench-echo

$(KECHO_DIR)/%: src/kecho/%
	@mkdir -p $(dir $@)
	@cp $< $@

$(BUILD)/kecho.ko: $(KECHO_FILES)
	$(MAKE) -C $(KERNEL_HEADERS) M=$(abspath $(KECHO_DIR)) \
		CC=$(KERNEL_CC) W=1 modules
	@cp $(KECHO_DIR)/kecho.ko $@

module: $(BUILD)/kecho.ko

$(BUILD)/user-echo-server: $(call obj,$(BUILD),src/kecho/user/user_echo_server.c)
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/echo-bench: $(call obj,$(BUILD),src/kecho/user/echo_bench.c)
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS) -lm

# The echo test of the kernel suite, against the user-space twin on the host.
suite-echo: $(BUILD)/user-echo-server $(BUILD)/echo-bench
	@BUILD=$(BUILD) tests/kecho/run.sh

bench-echo: deps-build
	@scripts/install-deps.sh $(BENCH_KERNEL_DEPS) $(KERNEL_CC) gnuplot-nox
	@$(MAKE) --no-print-directory module
	BUILD=$(BUILD) bench/kecho/run.sh
