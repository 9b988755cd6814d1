/* SPDX-License-Identifier: MIT */
/*
 * The one place where the HTTP core touches its environment.  Everything in
 * src/http/ is pure computation over caller-owned buffers, so the same files
 * build into the user-space server and into the kernel module; this header
 * supplies the few types and string functions they need in either world.
 */
#ifndef HTTP_COMPAT_H
#define HTTP_COMPAT_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/types.h>
/* <stdint.h>'s limits, under their kernel names. */
#define INT64_MIN S64_MIN
#define INT64_MAX S64_MAX
#define UINT64_MAX U64_MAX
#define INT32_MAX S32_MAX
#define UINT32_MAX U32_MAX
#define UINT16_MAX U16_MAX
#define UINT8_MAX U8_MAX
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#endif /* HTTP_COMPAT_H */
