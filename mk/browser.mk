# The listing in a real browser: `make suite-browser` (part of `make check`)
# has headless Chromium render a listing, checks its DOM and that it fits
# 1200 and 400 px, and leaves screenshots in $(BUILD)/browser.  Skipped
# (counted as such) where chromium is missing.
DEPS_CHECK   += chromium
CHECK_SUITES += browser

.PHONY: suite-browser
suite-browser: $(BUILD)/sehttpd
	@SEHTTPD_BIN=$(abspath $(BUILD))/sehttpd \
		BROWSER_OUT=$(abspath $(BUILD))/browser tests/browser/run.sh
