# Debian's media-types: /etc/mime.types, which sehttpd reads by default
# (over its built-in table) and the integration tests compare against.
DEPS_BUILD += media-types
