# The listing in a real browser: `make suite-browser` (part of `make check`)
# has headless Chromium render a listing, checks its DOM and that it fits
# 1200 and 400 px, and leaves screenshots in $(BUILD)/browser; and loads
# a page of 40 assets over HTTPS (a test CA's certificate, made with
# openssl) and checks that the page and every asset came over h2.
# Skipped (counted as such) where chromium is missing.
DEPS_CHECK   += chromium openssl
CHECK_SUITES += browser

.PHONY: suite-browser
suite-browser: $(BUILD)/sehttpd
	@SEHTTPD_BIN=$(abspath $(BUILD))/sehttpd \
		BROWSER_OUT=$(abspath $(BUILD))/browser tests/browser/run.sh
