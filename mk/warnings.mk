# The one warning list, read by the Makefile (user space) and by
# src/khttpd/Kbuild (the HTTP core inside the module), so the core is held
# to the same rules in both.  Any warning is an error in both builds.
#
# WARNINGS_CORE: what both builds add to their compiler's defaults.  The
# kernel brings its own -Wall, W=1 set and -Werror (ccflags-y in Kbuild).
WARNINGS_CORE := -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
		 -Wvla -Wpointer-arith -Wformat=2 \
		 -Wno-missing-field-initializers
# User space: everything above, plus -Wall and -Werror.
WARNINGS := -Wall -Werror $(WARNINGS_CORE)
