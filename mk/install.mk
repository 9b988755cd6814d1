# `make install`: the programs, the man page, the systemd units and the
# licence under DESTDIR/PREFIX (default /usr/local); `make uninstall` removes
# them.  The service unit gets the installed path of sehttpd.
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(PREFIX)/bin
MANDIR  := $(PREFIX)/share/man
DOCDIR  := $(PREFIX)/share/doc/sehttpd
UNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALLED := $(BINDIR)/sehttpd $(BINDIR)/htstress $(MANDIR)/man1/sehttpd.1 \
	     $(UNITDIR)/sehttpd.service $(UNITDIR)/sehttpd.socket \
	     $(DOCDIR)/LICENSE $(DOCDIR)/GPL-2.0

CHECK_SUITES += install
.PHONY: install uninstall suite-install

install: $(BUILD)/sehttpd $(BUILD)/htstress
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 $(BUILD)/sehttpd $(BUILD)/htstress $(DESTDIR)$(BINDIR)
	install -m 644 doc/sehttpd.1 $(DESTDIR)$(MANDIR)/man1
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/systemd/sehttpd.service \
		>$(DESTDIR)$(UNITDIR)/sehttpd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/sehttpd.service
	install -m 644 contrib/systemd/sehttpd.socket $(DESTDIR)$(UNITDIR)
	install -m 644 LICENSE LICENSES/GPL-2.0 $(DESTDIR)$(DOCDIR)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null

# make install into a scratch DESTDIR, and the man page against --help
# and the option table (man.mk).
suite-install: $(BUILD)/sehttpd $(BUILD)/htstress $(BUILD)/man-options
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/install/run.sh
