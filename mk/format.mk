# `make format` lays out every C file as .clang-format says.
# `make check-format`: every C file and header in src, tests, tools and
# bench must be as clang-format (the root .clang-format) leaves it.  Part of
# `make check` as the suite "format", one pass or failure per file, niced
# beside the integration suites.
DEPS_CHECK += clang-format
CHECK_BESIDE += format
FORMAT_DIRS := src tests tools bench

.PHONY: format check-format suite-format

FORMAT_FILES = $(shell find $(FORMAT_DIRS) -name '*.[ch]' | sort)

format:
	clang-format -i $(FORMAT_FILES)

check-format:
	@scripts/install-deps.sh clang-format
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/run-suites.sh format

suite-format:
	@pass=0; fail=0; \
	for f in $(FORMAT_FILES); do \
		if nice -n 19 clang-format --dry-run -Werror "$$f" \
				2>/dev/null; then \
			pass=$$((pass + 1)); \
		else \
			echo "format: $$f differs from clang-format's layout" \
			     "(clang-format -i $$f)"; \
			fail=$$((fail + 1)); \
		fi; \
	done; \
	echo "format: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]
