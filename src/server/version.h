/* SPDX-License-Identifier: MIT */
#ifndef SERVER_VERSION_H
#define SERVER_VERSION_H

#define SEHTTPD_VERSION "0.1.0"
#define SEHTTPD_SERVER_TOKEN "sehttpd"

#endif /* SERVER_VERSION_H */
