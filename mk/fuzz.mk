# The HTTP core under libFuzzer with ASan and UBSan: `make suite-fuzz` (part
# of `make check`) fuzzes for FUZZ_TIME seconds from the seed corpus in
# tests/fuzz/corpus; new inputs it finds go to $(BUILD)/fuzz/corpus, a
# crashing one to $(BUILD)/fuzz/crash-*.  Where clang's libFuzzer is missing,
# a gcc-built replayer runs the seeds instead and the fuzzing is skipped.
FUZZ_CC   ?= clang
FUZZ_TIME ?= 30
FUZZ_DIR  := $(BUILD)/fuzz
FUZZ_SRC  := tests/fuzz/fuzz_request.c
FUZZ_DEPS := $(FUZZ_SRC) $(HTTP_SRCS) $(wildcard src/http/*.h)
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -Isrc $(WARNINGS) -g -O1 \
	      -fno-omit-frame-pointer -fno-sanitize-recover=all
# Room for a head at every limit and beyond (HTTP_MAX_HEAD is 24584).
FUZZ_ARGS := -max_total_time=$(FUZZ_TIME) -max_len=26000 -timeout=10 \
	     -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_DIR)/

DEPS_CHECK   += clang libclang-rt-14-dev
CHECK_SUITES += fuzz

.PHONY: suite-fuzz

$(FUZZ_DIR)/fuzz_request: $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $(FUZZ_SRC) $(HTTP_SRCS)

$(FUZZ_DIR)/fuzz_request_replay: $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_FLAGS) $(SANFLAGS) -DFUZZ_STANDALONE \
		-o $@ $(FUZZ_SRC) $(HTTP_SRCS)

suite-fuzz:
	@mkdir -p $(FUZZ_DIR)/corpus; log=$(FUZZ_DIR)/fuzz.log; : >$$log; \
	if $(MAKE) --no-print-directory -s $(FUZZ_DIR)/fuzz_request \
			>>$$log 2>&1; then \
		if $(FUZZ_DIR)/fuzz_request $(FUZZ_ARGS) $(FUZZ_DIR)/corpus \
				tests/fuzz/corpus >>$$log 2>&1; then \
			grep -E '^Done [0-9]+ runs' $$log; \
			echo "fuzz: 1 passed, 0 failed"; \
		else \
			tail -n 40 $$log; \
			input=$$(sed -n 's/.*Test unit written to //p' $$log | \
				 tail -n 1); \
			echo "fuzz: failed; crash input: $${input:-none} (log $$log)"; \
			echo "fuzz: 0 passed, 1 failed"; \
			exit 1; \
		fi; \
	else \
		echo "fuzz: no libFuzzer ($$log); replaying the seed corpus"; \
		if $(MAKE) --no-print-directory -s \
				$(FUZZ_DIR)/fuzz_request_replay && \
		   $(FUZZ_DIR)/fuzz_request_replay tests/fuzz/corpus/*; then \
			echo "fuzz: 1 passed, 0 failed, 1 skipped"; \
		else \
			echo "fuzz: 0 passed, 1 failed, 1 skipped"; \
			exit 1; \
		fi; \
	fi
