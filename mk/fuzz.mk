# The HTTP core under libFuzzer with ASan and UBSan: `make suite-fuzz` (part
# of `make check`) fuzzes each target for its time (FUZZ_TIME seconds for
# the request parser, FUZZ_PROXY_TIME for the PROXY header parser,
# FUZZ_SERVE_TIME for the serving plan) from its seed corpus in tests/fuzz; new inputs it finds go to $(BUILD)/fuzz/corpus*,
# a crashing one to $(BUILD)/fuzz/crash-*.  Where clang's libFuzzer is
# missing, a gcc-built replayer runs the seeds instead and the fuzzing is
# skipped.  It runs niced: `make check` runs it beside the integration
# suites, whose timers must not wait for it.
FUZZ_CC   ?= clang
FUZZ_TIME ?= 30
FUZZ_PROXY_TIME ?= 10
FUZZ_SERVE_TIME ?= 20
FUZZ_DIR  := $(BUILD)/fuzz
FUZZ_DEPS := $(HTTP_SRCS) $(wildcard src/http/*.h) tests/fuzz/fuzz.h
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -Isrc $(WARNINGS) -g -O1 \
	      -fno-omit-frame-pointer -fno-sanitize-recover=all
# Room for a head at every limit and beyond (HTTP_MAX_HEAD is 24584).
FUZZ_ARGS := -max_len=26000 -timeout=10 -rss_limit_mb=2048 \
	     -artifact_prefix=$(FUZZ_DIR)/

# True where FUZZ_CC links a libFuzzer target at all: then a target that does
# not build is a failure (a warning clang makes and gcc does not, say), not
# a missing tool.
FUZZ_HAVE_LIBFUZZER = printf 'int LLVMFuzzerTestOneInput(const char *d, \
	unsigned long n) { return d && n; }\n' | $(FUZZ_CC) -x c \
	-fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1

# Each target: its source tests/fuzz/fuzz_NAME.c, seeds, time.
FUZZ_TARGETS := request proxy serve
fuzz_seeds_request := tests/fuzz/corpus
fuzz_seeds_proxy   := tests/fuzz/corpus_proxy
fuzz_seeds_serve   := tests/fuzz/corpus_serve
fuzz_time_request   = $(FUZZ_TIME)
fuzz_time_proxy     = $(FUZZ_PROXY_TIME)
fuzz_time_serve     = $(FUZZ_SERVE_TIME)

DEPS_CHECK   += clang libclang-rt-14-dev
CHECK_BESIDE += fuzz

.PHONY: suite-fuzz

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $< $(HTTP_SRCS)

$(FUZZ_DIR)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_FLAGS) $(SANFLAGS) \
		-o $@ $< tests/fuzz/replay.c $(HTTP_SRCS)

suite-fuzz:
	@pass=0; fail=0; skip=0; \
	for t in $(FUZZ_TARGETS); do \
		case $$t in \
		request) seeds=$(fuzz_seeds_request); \
			 time=$(fuzz_time_request); corpus=corpus ;; \
		proxy) seeds=$(fuzz_seeds_proxy); \
		       time=$(fuzz_time_proxy); corpus=corpus_proxy ;; \
		serve) seeds=$(fuzz_seeds_serve); \
		       time=$(fuzz_time_serve); corpus=corpus_serve ;; \
		esac; \
		mkdir -p $(FUZZ_DIR)/$$corpus; log=$(FUZZ_DIR)/fuzz_$$t.log; \
		: >$$log; \
		if nice -n 19 $(MAKE) --no-print-directory -s \
				$(FUZZ_DIR)/fuzz_$$t >>$$log 2>&1; then \
			if nice -n 19 $(FUZZ_DIR)/fuzz_$$t $(FUZZ_ARGS) \
					-max_total_time=$$time \
					$(FUZZ_DIR)/$$corpus $$seeds >>$$log 2>&1; then \
				echo "fuzz $$t: $$(grep -E '^Done [0-9]+ runs' $$log)"; \
				pass=$$((pass + 1)); \
			else \
				tail -n 40 $$log; \
				input=$$(sed -n 's/.*Test unit written to //p' \
					 $$log | tail -n 1); \
				echo "fuzz $$t: failed; crash input:" \
				     "$${input:-none} (log $$log)"; \
				fail=$$((fail + 1)); \
			fi; \
		elif $(FUZZ_HAVE_LIBFUZZER); then \
			tail -n 40 $$log; \
			echo "fuzz $$t: does not build with $(FUZZ_CC) ($$log)"; \
			fail=$$((fail + 1)); \
		else \
			echo "fuzz $$t: no libFuzzer ($$log); replaying the seeds"; \
			skip=$$((skip + 1)); \
			if $(MAKE) --no-print-directory -s \
					$(FUZZ_DIR)/replay_$$t && \
			   $(FUZZ_DIR)/replay_$$t $$seeds/*; then \
				pass=$$((pass + 1)); \
			else \
				fail=$$((fail + 1)); \
			fi; \
		fi; \
	done; \
	sk=; [ $$skip -eq 0 ] || sk=", $$skip skipped"; \
	echo "fuzz: $$pass passed, $$fail failed$$sk"; \
	[ $$fail -eq 0 ]

# `make fuzz`: a campaign beyond the suite's smoke, not part of `make check`.
# Each of FUZZ_TARGETS (or FUZZ_TARGET=NAME alone) runs FUZZ_S seconds
# (default 1800) from its seeds in tests/fuzz; the inputs that reach new
# coverage are then merged into those seeds (libFuzzer -merge=1 keeps only
# inputs that add coverage), so the corpus in the repository grows with each
# campaign: commit it.  Prints per target its executions, coverage (edges
# and features) and findings; a crash fails the run and leaves its input in
# $(BUILD)/fuzz/.  FUZZ_JOBS=N runs the targets at once (default 1).
FUZZ_S ?= 1800
FUZZ_TARGET ?= $(FUZZ_TARGETS)
FUZZ_JOBS ?= 1
.PHONY: fuzz

fuzz: deps-check
	@command -v $(FUZZ_CC) >/dev/null && $(FUZZ_HAVE_LIBFUZZER) || \
		{ echo "fuzz: $(FUZZ_CC) cannot link libFuzzer targets"; \
		  exit 1; }
	@$(MAKE) --no-print-directory -s \
		$(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGET))
	@printf '%s\n' $(FUZZ_TARGET) | xargs -P $(FUZZ_JOBS) -I{} \
		tests/fuzz/campaign.sh {} $(FUZZ_DIR) $(FUZZ_S) \
		"$(FUZZ_ARGS)"
