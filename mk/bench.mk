# `make bench`: sehttpd against nginx, lighttpd and h2o (and a floor server
# that does no HTTP work), each pinned to CPU 1 with the load on CPU 0.
# BENCH_ARGS passes options to bench/bench.py, e.g. BENCH_ARGS='--rounds 5'.
BENCH_DEPS := lighttpd h2o wrk gnuplot-nox python3
BENCH_ARGS ?=
# Built by `make check` too, so a change that breaks it shows at once.
CHECK_PROGRAMS += $(BUILD)/bench-floor

$(BUILD)/bench-floor: bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(OPTFLAGS) $(CFLAGS) -o $@ $< $(LDLIBS)

bench: deps-build
	@scripts/install-deps.sh $(BENCH_DEPS)
	@command -v nginx >/dev/null || scripts/install-deps.sh nginx-light || \
		scripts/install-deps.sh nginx
	@$(MAKE) --no-print-directory $(BUILD)/sehttpd $(BUILD)/htstress \
		$(BUILD)/bench-floor
	/usr/bin/python3 bench/bench.py --build $(BUILD) $(BENCH_ARGS)
