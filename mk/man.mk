# The OPTIONS section of doc/sehttpd.1 is written from the option table in
# src/sehttpd/options.c, the one --help prints: `make man` after changing an
# option.  The page itself stays in the tree, so `make install` needs no
# build step for it; the install suite fails while it is out of date.
CHECK_PROGRAMS += $(BUILD)/man-options
.PHONY: man

$(BUILD)/man-options: $(call obj,$(BUILD),tools/man-options/main.c) \
		$(BUILD)/libsehttpd.a
	$(CC) $(OPTFLAGS) -o $@ $^ $(LDLIBS) $(SEHTTPD_LIBS)

man: $(BUILD)/man-options
	$(BUILD)/man-options <doc/sehttpd.1 >$(BUILD)/sehttpd.1
	cp $(BUILD)/sehttpd.1 doc/sehttpd.1
