# sehttpd, khttpd and htstress.  `make` builds build/sehttpd; `make run`
# serves ./www on port 8080; `make check` builds everything and runs every
# test suite.  Both install missing Debian build dependencies first.

BUILD     ?= build
ARCH      := $(shell $(CC) -dumpmachine | cut -d- -f1)
PORT      ?= 8080

include mk/warnings.mk
BASEFLAGS := -std=gnu11 -D_GNU_SOURCE -Isrc -pthread -MMD -MP $(WARNINGS)
OPTFLAGS  ?= -O2 -g
SANFLAGS  := -O1 -g -fno-omit-frame-pointer \
	     -fsanitize=address,undefined -fno-sanitize-recover=all
LDLIBS    := -pthread
# brotlicommon and libm for a static link (make bench-kernel)
SEHTTPD_LIBS := -lnghttp2 -lssl -lcrypto -lcrypt -ldeflate -lz -lbrotlienc -lbrotlicommon -lzstd -lm

HTTP_SRCS    := $(wildcard src/http/*.c)
SEHTTPD_SRCS  := $(filter-out src/sehttpd/main.c,$(wildcard src/sehttpd/*.c)) \
		src/sehttpd/arch/coro_switch_$(ARCH).S
LIB_SRCS     := $(HTTP_SRCS) $(SEHTTPD_SRCS)
HTSTRESS_SRCS := $(wildcard tools/htstress/*.c)
UNIT_SRCS    := $(wildcard tests/unit/test_*.c)
UNIT_NAMES   := $(patsubst tests/unit/%.c,%,$(UNIT_SRCS))

obj = $(patsubst %,$(1)/obj/%.o,$(basename $(2)))

LIB_OBJS      := $(call obj,$(BUILD),$(LIB_SRCS))
SAN_LIB_OBJS  := $(call obj,$(BUILD)/san,$(LIB_SRCS))
HTSTRESS_LIB_SRCS := $(filter-out tools/htstress/main.c,$(HTSTRESS_SRCS))
UNIT_BINS     := $(addprefix $(BUILD)/tests/,$(UNIT_NAMES))
SAN_UNIT_BINS := $(addprefix $(BUILD)/san/tests/,$(UNIT_NAMES))

.PHONY: all run check check-unit check-integration check-aarch64 \
	check-kernel module bench bench-kernel deps-build deps-check \
	clean
.DEFAULT_GOAL := all

all: $(BUILD)/sehttpd $(BUILD)/htstress

# --- objects -------------------------------------------------------------
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(OPTFLAGS) $(CFLAGS) -c -o $@ $<
$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -c -o $@ $<
$(BUILD)/san/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(SANFLAGS) -c -o $@ $<
$(BUILD)/san/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -c -o $@ $<

$(BUILD)/libsehttpd.a: $(LIB_OBJS)
	$(AR) rcs $@ $^
$(BUILD)/san/libsehttpd.a: $(SAN_LIB_OBJS)
	$(AR) rcs $@ $^
# htstress's own units, apart from the server's.
$(BUILD)/libhtstress.a: $(call obj,$(BUILD),$(HTSTRESS_LIB_SRCS))
	$(AR) rcs $@ $^
$(BUILD)/san/libhtstress.a: $(call obj,$(BUILD)/san,$(HTSTRESS_LIB_SRCS))
	$(AR) rcs $@ $^

# --- programs ------------------------------------------------------------
$(BUILD)/sehttpd: $(call obj,$(BUILD),src/sehttpd/main.c) $(BUILD)/libsehttpd.a
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS) $(SEHTTPD_LIBS)
$(BUILD)/san/sehttpd: $(call obj,$(BUILD)/san,src/sehttpd/main.c) $(BUILD)/san/libsehttpd.a
	$(CC) $(SANFLAGS) -o $@ $^ $(LDLIBS) $(SEHTTPD_LIBS)
$(BUILD)/htstress: $(call obj,$(BUILD),tools/htstress/main.c) $(BUILD)/libhtstress.a
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS) -lm

# --- unit tests: each tests/unit/test_X.c is one binary --------------------
# Linked with both libraries: the linker takes only the units a test uses.
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(BUILD)/obj/tests/unit/harness.o \
		$(BUILD)/libhtstress.a $(BUILD)/libsehttpd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS) $(SEHTTPD_LIBS) -lm
$(BUILD)/san/tests/%: $(BUILD)/san/obj/tests/unit/%.o \
		$(BUILD)/san/obj/tests/unit/harness.o \
		$(BUILD)/san/libhtstress.a $(BUILD)/san/libsehttpd.a
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -o $@ $^ $(LDLIBS) $(SEHTTPD_LIBS) -lm

# --- set-up, running and testing -----------------------------------------
DEPS_BUILD := gcc make libc6-dev libdeflate-dev zlib1g-dev libbrotli-dev libzstd-dev \
	      libssl-dev libnghttp2-dev libcrypt-dev
DEPS_CHECK := curl wget python3 python3-h2 nghttp2-client haproxy brotli \
	      zstd apache2-utils openssl
# The two integration runs wait on timers more than they use the CPU: side
# by side (tests/run-suites.sh), they take the time of one, and suites that
# only compute (CHECK_BESIDE += name: the fuzzers, niced, and the format
# check) use the CPU they leave idle meanwhile.
CHECK_BESIDE := integration integration-san
empty :=
CHECK_SUITES = unit unit-san $(subst $(empty) $(empty),+,$(strip $(CHECK_BESIDE)))

# Fragments add their own programs, suites (CHECK_SUITES += name, with a
# suite-name target that prints "name: N passed, N failed") and packages.
include $(filter-out mk/warnings.mk,$(sort $(wildcard mk/*.mk)))

deps-build:
	@scripts/install-deps.sh $(DEPS_BUILD)
deps-check: deps-build
	@scripts/install-deps.sh $(DEPS_CHECK)

run: deps-build
	@$(MAKE) --no-print-directory $(BUILD)/sehttpd
	$(BUILD)/sehttpd -p $(PORT) www

# The build on every core (half the time on two); the suites one by one.
check: deps-check
	@$(MAKE) --no-print-directory -j$(shell nproc) all $(BUILD)/san/sehttpd \
		$(UNIT_BINS) $(SAN_UNIT_BINS) $(CHECK_PROGRAMS)
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/run-suites.sh $(CHECK_SUITES)

suite-unit: $(UNIT_BINS)
	@rc=0; for t in $^; do $$t || rc=1; done; exit $$rc
suite-unit-san: $(SAN_UNIT_BINS)
	@rc=0; for t in $^; do \
		UBSAN_OPTIONS=print_stacktrace=1 $$t || rc=1; done; exit $$rc
suite-integration: $(BUILD)/sehttpd $(BUILD)/htstress
	@SEHTTPD_BIN=$(BUILD)/sehttpd HTSTRESS_BIN=$(BUILD)/htstress \
		tests/integration/run.sh
# The same suite against the server built with ASan and UBSan: a report
# aborts the server (or fails its exit status), which fails the tests.
suite-integration-san: $(BUILD)/san/sehttpd $(BUILD)/htstress
	@SEHTTPD_BIN=$(BUILD)/san/sehttpd HTSTRESS_BIN=$(BUILD)/htstress \
		INTEGRATION_NAME=integration-san \
		ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		tests/integration/run.sh

clean:
	rm -rf $(BUILD)

.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
