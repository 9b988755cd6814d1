/* SPDX-License-Identifier: MIT */
#ifndef SEHTTPD_VERSION_H
#define SEHTTPD_VERSION_H

#define SEHTTPD_VERSION "0.1.0"
#define SEHTTPD_SERVER_TOKEN "sehttpd"

#endif /* SEHTTPD_VERSION_H */
