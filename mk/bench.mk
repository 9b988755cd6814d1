# `make bench`: sehttpd against nginx, lighttpd and h2o (and a floor server
# that does no HTTP work), each pinned to CPU 1 with the load on CPU 0.
# The HTTPS rows (tls_*) make their certificate with openssl(1) and time
# new connections with openssl s_time; lighttpd is left out of them.
# The HTTP/2 rows (h2_*, h2c_*) run h2load (nghttp2-client) against
# sehttpd, nginx and h2o, after curl has fetched every file over HTTP/2.
# BENCH_ARGS passes options to bench/bench.py, e.g. BENCH_ARGS='--rounds 5'.
BENCH_DEPS := lighttpd lighttpd-mod-deflate h2o wrk gnuplot-nox haproxy python3 \
	      brotli zstd openssl nghttp2-client curl
BENCH_ARGS ?=
# An lwan column: LWAN=PATH (a built binary) or LWAN_SRC=DIR (its source
# tree, built here with cmake: Release, without TLS, Brotli and zstd).
LWAN_SRC ?=
LWAN ?= $(if $(LWAN_SRC),$(BUILD)/lwan/src/bin/lwan/lwan)
# Built by `make check` too, so a change that breaks it shows at once.
CHECK_PROGRAMS += $(BUILD)/bench-floor $(BUILD)/bench-floor-h2

$(BUILD)/bench-floor: bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(OPTFLAGS) $(CFLAGS) -o $@ $< $(LDLIBS)

# The h2c rows' floor: libnghttp2 answering a fixed response, nothing else.
$(BUILD)/bench-floor-h2: bench/floor_h2.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(OPTFLAGS) $(CFLAGS) -o $@ $< $(LDLIBS) -lnghttp2

bench: deps-build
	@scripts/install-deps.sh $(BENCH_DEPS)
	@command -v nginx >/dev/null || scripts/install-deps.sh nginx-light || \
		scripts/install-deps.sh nginx
	@$(MAKE) --no-print-directory $(BUILD)/sehttpd $(BUILD)/htstress \
		$(BUILD)/bench-floor $(BUILD)/bench-floor-h2
ifneq ($(LWAN_SRC),)
	@scripts/install-deps.sh cmake zlib1g-dev
	cmake -S $(LWAN_SRC) -B $(BUILD)/lwan -DCMAKE_BUILD_TYPE=Release \
		-DENABLE_TLS=OFF -DENABLE_BROTLI=OFF -DENABLE_ZSTD=OFF >/dev/null
	$(MAKE) -C $(BUILD)/lwan lwan >/dev/null
endif
	/usr/bin/python3 bench/bench.py --build $(BUILD) \
		$(if $(LWAN),--lwan $(LWAN)) $(BENCH_ARGS)

# `make bench-kernel`: khttpd against sehttpd inside one qemu guest, both
# static binaries driven from inside it (bench/kernel/).  sehttpd is built
# statically by a sub-make into $(BUILD)/static, apart from the normal build.
# Its link warns that a static getaddrinfo needs glibc's NSS libraries at
# run time: only for names, and the guest's sehttpd binds 0.0.0.0.
# BENCH_KERNEL_ARGS passes options to bench/kernel/measure.py.
# It runs on each kernel installed (6.1 and 6.12), one after the other.
BENCH_KERNEL_DEPS := qemu-system-x86 busybox-static kmod libelf1 pahole \
		     cpio python3 xz-utils zstd
BENCH_KERNEL_ARGS ?=

bench-kernel: deps-build
	@scripts/install-deps.sh $(BENCH_KERNEL_DEPS) $(KERNEL_CC_PACKAGE)
	@BUILD=$(BUILD) tests/kernel/fetch-kernels.sh
	@$(MAKE) --no-print-directory modules-all
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/static \
		OPTFLAGS='$(OPTFLAGS) -static' $(BUILD)/static/sehttpd
	@for v in $$(BUILD=$(BUILD) tests/kernel/kver.sh --all); do \
		KVER=$$v BUILD=$(BUILD) bench/kernel/run.sh $(BENCH_KERNEL_ARGS) \
			|| exit 1; \
	done
