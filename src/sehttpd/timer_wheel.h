/* SPDX-License-Identifier: MIT */
/*
 * A hierarchical timing wheel with millisecond ticks: 4 levels of 64 slots
 * reach 2^24 ms (4.6 hours) ahead; later timers wait on an overflow list that
 * is re-sorted each time the wheel comes round.  Timers are embedded in their
 * owner's struct; adding, moving and deleting one is O(1) and never
 * allocates.  A timer sits at the level of the highest base-64 digit in which
 * its expiry differs from the wheel's clock, and moves down a level (the
 * cascade) only when the clock reaches that digit.
 */
#ifndef SEHTTPD_TIMER_WHEEL_H
#define SEHTTPD_TIMER_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#include "list.h"

#define TIMER_WHEEL_BITS 6
#define TIMER_WHEEL_SLOTS (1u << TIMER_WHEEL_BITS)
#define TIMER_WHEEL_LEVELS 4

/* Opaque to users: embed one, timer_init() it, find the owner with
 * container_of. */
struct timer {
	struct hlist_node node; /* on no list when not pending */
	uint64_t expires;
};

struct timer_wheel {
	uint64_t now; /* the last tick processed */
	struct hlist_head due; /* expired, not yet handed out */
	struct hlist_head overflow; /* beyond the top level's reach */
	uint64_t occupied[TIMER_WHEEL_LEVELS]; /* a bit per non-empty slot */
	struct hlist_head slots[TIMER_WHEEL_LEVELS][TIMER_WHEEL_SLOTS];
};

void timer_wheel_init(struct timer_wheel *w, uint64_t now_ms);
void timer_init(struct timer *t); /* not pending */
bool timer_pending(const struct timer *t);
/* The expiry t was last armed with. */
uint64_t timer_expires(const struct timer *t);
/* (Re)arms t to expire at expires_ms (absolute, on the clock now_ms is read
 * from); a pending timer is moved.  An expiry in the past means "at the next
 * timer_wheel_expire()". */
void timer_wheel_add(struct timer_wheel *w, struct timer *t,
		     uint64_t expires_ms);
/* A no-op when t is not pending. */
void timer_wheel_del(struct timer_wheel *w, struct timer *t);
/* Milliseconds until the earliest pending expiry (0 if one is due), or -1
 * when nothing is pending: epoll_wait()'s timeout.  It can be earlier than
 * the true expiry (when a cascade is due), never later. */
int timer_wheel_next_timeout(struct timer_wheel *w, uint64_t now_ms);
/* Advances the wheel to now_ms and pops one expired timer (no longer
 * pending), or returns NULL when none is due: loop until NULL.  Timers may be
 * added and deleted, this one or others, between calls. */
struct timer *timer_wheel_expire(struct timer_wheel *w, uint64_t now_ms);

#endif /* SEHTTPD_TIMER_WHEEL_H */
