# `make soak`: sehttpd under mixed load and injected faults for SOAK_S
# seconds (default 1800), every response checked against every version its
# file had; RSS and descriptors must stay flat (tests/soak/soak.py).
# SOAK_SAN=1 soaks the ASan/UBSan build instead.  Samples and a chart go to
# $(BUILD)/soak.  Not part of `make check` by itself: its suite "soak" is a
# 60-second run of the same (with SOAK_SAN's build, so that a sanitizer
# report fails it), each fault kind at least twice.
SOAK_S   ?= 1800
SOAK_SAN ?=
SOAK_BIN  = $(if $(filter 1,$(SOAK_SAN)),$(BUILD)/san/sehttpd,$(BUILD)/sehttpd)
SOAK_RUN  = /usr/bin/python3 tests/soak/soak.py --htstress $(BUILD)/htstress

CHECK_SUITES += soak

.PHONY: soak suite-soak

soak: deps-check
	@$(MAKE) --no-print-directory $(SOAK_BIN) $(BUILD)/htstress
	$(SOAK_RUN) --seconds $(SOAK_S) --sehttpd $(SOAK_BIN) --out $(BUILD)/soak

suite-soak: $(BUILD)/san/sehttpd $(BUILD)/htstress
	@$(SOAK_RUN) --seconds 60 --sehttpd $(BUILD)/san/sehttpd \
		--out $(BUILD)/soak-check
