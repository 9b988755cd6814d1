// SPDX-License-Identifier: MIT
/*
 * Invariant, with N = w->now (the last tick processed):
 *  - a timer on the due list has expires <= N;
 *  - a timer in slot s of level l agrees with N in every base-64 digit above
 *    l, and its digit l is s, greater than N's: it expires after N, before
 *    N's level-l+1 digit changes;
 *  - a timer on the overflow list expires after N's top-level span ends.
 * So where a pending timer sits follows from its expiry and N alone, which
 * is how timer_wheel_del() finds the slot whose bit may need clearing.
 */
#include "timer_wheel.h"

#include <limits.h>
#include <stddef.h>

#define SLOT_MASK (TIMER_WHEEL_SLOTS - 1)
#define WHEEL_BITS (TIMER_WHEEL_LEVELS * TIMER_WHEEL_BITS)
#define WHEEL_MASK ((UINT64_C(1) << WHEEL_BITS) - 1)
#define LOCATION_DUE (-1)
#define LOCATION_OVERFLOW TIMER_WHEEL_LEVELS

static unsigned level_shift(int level)
{
	return (unsigned)level * TIMER_WHEEL_BITS;
}

static unsigned slot_of(uint64_t expires, int level)
{
	return (unsigned)(expires >> level_shift(level)) & SLOT_MASK;
}

/* A level, LOCATION_DUE or LOCATION_OVERFLOW: see the invariant above. */
static int location_of(const struct timer_wheel *w, uint64_t expires)
{
	uint64_t diff = expires ^ w->now;

	if (expires <= w->now)
		return LOCATION_DUE;
	if (diff >> WHEEL_BITS)
		return LOCATION_OVERFLOW;
	return (63 - __builtin_clzll(diff)) / TIMER_WHEEL_BITS;
}

static void place(struct timer_wheel *w, struct timer *t)
{
	int level = location_of(w, t->expires);
	unsigned slot;

	if (level == LOCATION_DUE) {
		hlist_add_head(&t->node, &w->due);
	} else if (level == LOCATION_OVERFLOW) {
		hlist_add_head(&t->node, &w->overflow);
	} else {
		slot = slot_of(t->expires, level);
		hlist_add_head(&t->node, &w->slots[level][slot]);
		w->occupied[level] |= UINT64_C(1) << slot;
	}
}

void timer_wheel_init(struct timer_wheel *w, uint64_t now_ms)
{
	*w = (struct timer_wheel){ .now = now_ms };
}

void timer_init(struct timer *t)
{
	*t = (struct timer){ 0 };
}

bool timer_pending(const struct timer *t)
{
	return !hlist_unhashed(&t->node);
}

uint64_t timer_expires(const struct timer *t)
{
	return t->expires;
}

void timer_wheel_del(struct timer_wheel *w, struct timer *t)
{
	int level;
	unsigned slot;

	if (!timer_pending(t))
		return;
	level = location_of(w, t->expires);
	hlist_del_init(&t->node);
	if (level == LOCATION_DUE || level == LOCATION_OVERFLOW)
		return;
	slot = slot_of(t->expires, level);
	if (hlist_empty(&w->slots[level][slot]))
		w->occupied[level] &= ~(UINT64_C(1) << slot);
}

void timer_wheel_add(struct timer_wheel *w, struct timer *t,
		     uint64_t expires_ms)
{
	timer_wheel_del(w, t);
	t->expires = expires_ms;
	place(w, t);
}

/*
 * The first tick after w->now at which a slot fires (level 0) or cascades,
 * or UINT64_MAX when nothing is pending outside the due list.  A lower level
 * always comes first: its slots all lie within the current span of the level
 * above, whose own slots lie beyond it.
 */
static uint64_t next_event(const struct timer_wheel *w)
{
	for (int level = 0; level < TIMER_WHEEL_LEVELS; level++) {
		unsigned shift = level_shift(level);
		uint64_t span_start;

		if (!w->occupied[level])
			continue;
		span_start = w->now >> (shift + TIMER_WHEEL_BITS)
					       << (shift + TIMER_WHEEL_BITS);
		return span_start +
		       ((uint64_t)__builtin_ctzll(w->occupied[level]) << shift);
	}
	if (!hlist_empty(&w->overflow))
		return (w->now | WHEEL_MASK) + 1;
	return UINT64_MAX;
}

/* Re-places every timer of a list that the clock has just caught up with. */
static void cascade(struct timer_wheel *w, struct hlist_head *head)
{
	struct hlist_head list;
	struct hlist_node *next;
	struct timer *t;

	hlist_move_list(head, &list);
	hlist_for_each_entry_safe(t, next, &list, node)
	{
		hlist_del_init(&t->node);
		place(w, t);
	}
}

static void cascade_slot(struct timer_wheel *w, int level, unsigned slot)
{
	uint64_t bit = UINT64_C(1) << slot;

	if (!(w->occupied[level] & bit))
		return;
	w->occupied[level] &= ~bit;
	cascade(w, &w->slots[level][slot]);
}

/*
 * Moves the clock to tick, where next_event() said something happens, and
 * empties the slots whose digit the clock has reached.  place() puts each
 * timer straight at the level of its highest digit still ahead of the clock,
 * never into a slot emptied here, so the order of the levels does not matter.
 */
static void run_tick(struct timer_wheel *w, uint64_t tick)
{
	w->now = tick;
	if (!(tick & WHEEL_MASK))
		cascade(w, &w->overflow);
	for (int level = TIMER_WHEEL_LEVELS - 1; level >= 0; level--) {
		uint64_t below = (UINT64_C(1) << level_shift(level)) - 1;

		if (!(tick & below))
			cascade_slot(w, level, slot_of(tick, level));
	}
}

struct timer *timer_wheel_expire(struct timer_wheel *w, uint64_t now_ms)
{
	struct timer *t;

	while (hlist_empty(&w->due)) {
		uint64_t tick;

		if (now_ms <= w->now)
			return NULL;
		tick = next_event(w);
		if (tick > now_ms) {
			w->now = now_ms; /* nothing happens on the way */
			return NULL;
		}
		run_tick(w, tick);
	}
	t = hlist_entry(w->due.first, struct timer, node);
	hlist_del_init(&t->node);
	return t;
}

int timer_wheel_next_timeout(struct timer_wheel *w, uint64_t now_ms)
{
	uint64_t tick;

	if (!hlist_empty(&w->due))
		return 0;
	tick = next_event(w);
	if (tick == UINT64_MAX)
		return -1;
	if (tick <= now_ms)
		return 0;
	if (tick - now_ms > INT_MAX)
		return INT_MAX;
	return (int)(tick - now_ms);
}
