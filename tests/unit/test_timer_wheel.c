// SPDX-License-Identifier: MIT
/* The timing wheel, checked tick by tick and against a plain model. */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "sehttpd/timer_wheel.h"

#define START 1000000 /* an arbitrary clock value to start from */
#define HOUR (3600 * 1000ull)

struct item {
	struct timer timer;
	uint64_t expires;
	uint64_t fired_at;
	int fired;
	bool armed; /* the model: pending in the wheel */
};

static struct item *item_of(struct timer *t)
{
	return container_of(t, struct item, timer);
}

static void arm(struct timer_wheel *w, struct item *it, uint64_t expires)
{
	it->expires = expires;
	it->armed = true;
	timer_wheel_add(w, &it->timer, expires);
}

/* Pops everything due at now, recording when each fired. */
static int expire_all(struct timer_wheel *w, uint64_t now)
{
	struct timer *t;
	int n = 0;

	while ((t = timer_wheel_expire(w, now))) {
		struct item *it = item_of(t);

		CHECK(!timer_pending(t));
		it->fired++;
		it->fired_at = now;
		it->armed = false;
		n++;
	}
	return n;
}

static void items_init(struct item *items, int n)
{
	for (int i = 0; i < n; i++) {
		items[i] = (struct item){ .fired = 0 };
		timer_init(&items[i].timer);
	}
}

/* Delays that land on every level, on and around its boundaries. */
static const uint64_t delays[] = {
	1,	2,	62,	 63,	  64,	    65,	      100,
	4094,	4095,	4096,	 4097,	  5000,	    65535,    262143,
	262144, 262145, 1000000, 4194303, 16777215, 16777216, 16777217,
};
#define NDELAYS (sizeof(delays) / sizeof(delays[0]))

TEST(fires_exactly_on_time)
{
	static struct timer_wheel w;
	struct item items[NDELAYS];
	uint64_t end = START + 16777217 + 2;
	int fired = 0;

	items_init(items, NDELAYS);
	timer_wheel_init(&w, START);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START), -1);
	for (size_t i = 0; i < NDELAYS; i++) {
		arm(&w, &items[i], START + delays[i]);
		CHECK(timer_pending(&items[i].timer));
		CHECK_EQ_INT(timer_expires(&items[i].timer), START + delays[i]);
	}
	for (uint64_t now = START; now <= end; now++)
		fired += expire_all(&w, now);
	CHECK_EQ_INT(fired, NDELAYS);
	for (size_t i = 0; i < NDELAYS; i++) {
		CHECK_EQ_INT(items[i].fired, 1);
		CHECK_EQ_INT(items[i].fired_at, START + delays[i]);
	}
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, end), -1);
}

TEST(coarse_steps_fire_within_one_step)
{
	static struct timer_wheel w;
	struct item items[NDELAYS];
	const uint64_t step = 7;

	items_init(items, NDELAYS);
	timer_wheel_init(&w, START);
	for (size_t i = 0; i < NDELAYS; i++)
		arm(&w, &items[i], START + delays[i]);
	for (uint64_t now = START; now <= START + 16777217 + step; now += step)
		expire_all(&w, now);
	for (size_t i = 0; i < NDELAYS; i++) {
		CHECK_EQ_INT(items[i].fired, 1);
		CHECK(items[i].fired_at >= items[i].expires);
		CHECK(items[i].fired_at < items[i].expires + step);
	}
}

TEST(order_across_levels_in_one_jump)
{
	static struct timer_wheel w;
	struct item items[NDELAYS];
	uint64_t last = 0;
	struct timer *t;
	int n = 0;

	items_init(items, NDELAYS);
	timer_wheel_init(&w, START);
	/* Added in reverse, so insertion order cannot explain the result. */
	for (size_t i = NDELAYS; i-- > 0;)
		arm(&w, &items[i], START + delays[i]);
	while ((t = timer_wheel_expire(&w, START + 20000000))) {
		CHECK(timer_expires(t) >= last);
		last = timer_expires(t);
		n++;
	}
	CHECK_EQ_INT(n, NDELAYS);
}

TEST(hours_ahead)
{
	static struct timer_wheel w;
	/* Beyond the wheel's 4.66 hours too: these wait on the overflow. */
	static const uint64_t at[] = { 1 * HOUR, 4 * HOUR + 1234, 5 * HOUR + 17,
				       30 * HOUR + 999, 100 * HOUR + 1 };
	struct item items[5];
	uint64_t now;

	items_init(items, 5);
	timer_wheel_init(&w, START);
	for (int i = 0; i < 5; i++)
		arm(&w, &items[i], START + at[i]);
	/* A wake-up a second, as an idle server with a 1 s tick might. */
	for (now = START; now <= START + 101 * HOUR; now += 1000) {
		int next;

		expire_all(&w, now);
		next = timer_wheel_next_timeout(&w, now);
		if (!items[4].armed)
			break;
		CHECK(next > 0);
		for (int i = 0; i < 5; i++)
			if (items[i].armed)
				CHECK((uint64_t)next <= items[i].expires - now);
	}
	for (int i = 0; i < 5; i++) {
		CHECK_EQ_INT(items[i].fired, 1);
		CHECK(items[i].fired_at >= START + at[i]);
		CHECK(items[i].fired_at < START + at[i] + 1000);
	}
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, now), -1);
}

/* Sleeping exactly next_timeout each time lands on every expiry. */
TEST(sleeping_by_next_timeout)
{
	static struct timer_wheel w;
	static struct item items[1000];
	uint64_t now = START, rng = 12345;
	int wakeups = 0, fired = 0, next;

	items_init(items, 1000);
	timer_wheel_init(&w, now);
	for (int i = 0; i < 1000; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		arm(&w, &items[i], now + (rng >> 33) % (10 * HOUR));
	}
	while ((next = timer_wheel_next_timeout(&w, now)) >= 0 &&
	       wakeups < 100000) {
		now += (uint64_t)next;
		fired += expire_all(&w, now);
		wakeups++;
	}
	CHECK_EQ_INT(fired, 1000);
	for (int i = 0; i < 1000; i++)
		CHECK_EQ_INT(items[i].fired_at, items[i].expires);
	/* Early wake-ups are for cascades: a few per timer at most. */
	CHECK(wakeups <= 1000 * (TIMER_WHEEL_LEVELS + 1) + 10);
}

TEST(delete_and_update)
{
	static struct timer_wheel w;
	struct item items[6];

	items_init(items, 6);
	timer_wheel_init(&w, START);
	timer_wheel_del(&w, &items[0].timer); /* not pending: no-op */
	CHECK(!timer_pending(&items[0].timer));

	arm(&w, &items[0], START + 100);
	timer_wheel_del(&w, &items[0].timer);
	CHECK(!timer_pending(&items[0].timer));
	arm(&w, &items[1], START + 5000); /* moved earlier, then later */
	arm(&w, &items[1], START + 50);
	arm(&w, &items[1], START + 300000);
	arm(&w, &items[2], START + 70); /* moved earlier */
	arm(&w, &items[2], START + 3);
	arm(&w, &items[3], START - 5); /* in the past, then deleted */
	timer_wheel_del(&w, &items[3].timer);
	arm(&w, &items[4], START); /* due now */
	arm(&w, &items[5], START + 20 * HOUR); /* overflow, deleted */
	timer_wheel_del(&w, &items[5].timer);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START), 0);

	for (uint64_t now = START; now <= START + 300001; now++)
		expire_all(&w, now);
	CHECK_EQ_INT(items[0].fired, 0);
	CHECK_EQ_INT(items[1].fired, 1);
	CHECK_EQ_INT(items[1].fired_at, START + 300000);
	CHECK_EQ_INT(items[2].fired, 1);
	CHECK_EQ_INT(items[2].fired_at, START + 3);
	CHECK_EQ_INT(items[3].fired, 0);
	CHECK_EQ_INT(items[4].fired, 1);
	CHECK_EQ_INT(items[4].fired_at, START);
	CHECK_EQ_INT(items[5].fired, 0);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START + 300001), -1);
}

TEST(changes_during_expiry_loop)
{
	static struct timer_wheel w;
	struct item items[5]; /* 0-2 due together, 3 a tick later, 4 spare */
	struct item *first = NULL;
	struct timer *t;
	int popped = 0;

	items_init(items, 5);
	timer_wheel_init(&w, START);
	for (int i = 0; i < 3; i++)
		arm(&w, &items[i], START + 10);
	arm(&w, &items[3], START + 11);
	while ((t = timer_wheel_expire(&w, START + 10)) && popped < 10) {
		struct item *it = item_of(t);

		it->fired++;
		it->armed = false;
		if (popped++)
			continue;
		first = it;
		/* The other two are still due: deleted, they never fire. */
		for (int i = 0; i < 3; i++)
			if (&items[i] != it)
				timer_wheel_del(&w, &items[i].timer);
		/* Re-arm this one later; add one in the past; move one
		 * that was not due yet to now: both fire in this loop. */
		arm(&w, it, START + 12);
		arm(&w, &items[4], START + 1);
		arm(&w, &items[3], START + 10);
	}
	CHECK_EQ_INT(popped, 3);
	CHECK(first != NULL);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(items[i].fired, &items[i] == first);
	CHECK_EQ_INT(items[3].fired, 1);
	CHECK_EQ_INT(items[4].fired, 1);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START + 10), 2);
	CHECK(timer_wheel_expire(&w, START + 11) == NULL);
	t = timer_wheel_expire(&w, START + 12);
	CHECK(t != NULL && item_of(t) == first);
	CHECK(timer_wheel_expire(&w, START + 12) == NULL);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START + 12), -1);
}

TEST(next_timeout_basics)
{
	static struct timer_wheel w;
	struct item items[2];

	items_init(items, 2);
	timer_wheel_init(&w, START);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START), -1);
	arm(&w, &items[0], START + 40); /* level 0: exact */
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START), 40);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START + 39), 1);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START + 45), 0);
	timer_wheel_del(&w, &items[0].timer);
	arm(&w, &items[1], START + 30000); /* higher: early, never late */
	CHECK(timer_wheel_next_timeout(&w, START) > 0);
	CHECK(timer_wheel_next_timeout(&w, START) <= 30000);
	arm(&w, &items[0], START - 1);
	CHECK_EQ_INT(timer_wheel_next_timeout(&w, START), 0);
}

/*
 * Random adds, moves, deletes and clock jumps of every size, compared after
 * each step with a plain array: nothing fires early or is missed, and
 * next_timeout never overshoots the true earliest expiry.
 */
#define MODEL_TIMERS 64
#define MODEL_STEPS 40000

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t random_delay(uint64_t *rng)
{
	static const uint64_t ranges[] = { 3,	   70,	     5000,
					   300000, 20000000, 40 * HOUR };

	return xorshift(rng) % ranges[xorshift(rng) % 6];
}

static uint64_t earliest_armed(const struct item *items)
{
	uint64_t min = UINT64_MAX;

	for (int i = 0; i < MODEL_TIMERS; i++)
		if (items[i].armed && items[i].expires < min)
			min = items[i].expires;
	return min;
}

TEST(random_model_comparison)
{
	static struct timer_wheel w;
	static struct item items[MODEL_TIMERS];
	uint64_t now = START, rng = 0x2545f4914f6cdd1dull;
	int bad_fire = 0, bad_pending = 0, bad_timeout = 0, missed = 0;
	long fired = 0;

	items_init(items, MODEL_TIMERS);
	timer_wheel_init(&w, now);
	for (int step = 0; step < MODEL_STEPS; step++) {
		struct item *it = &items[xorshift(&rng) % MODEL_TIMERS];
		uint64_t op = xorshift(&rng) % 10, min;
		struct timer *t;
		int next;

		if (op < 4) {
			arm(&w, it, now + random_delay(&rng));
		} else if (op == 4) {
			/* In the past (or now). */
			arm(&w, it, now - xorshift(&rng) % 100);
		} else if (op == 5) {
			timer_wheel_del(&w, &it->timer);
			it->armed = false;
		} else {
			now += random_delay(&rng) / (op == 9 ? 1 : 100);
			while ((t = timer_wheel_expire(&w, now))) {
				struct item *f = item_of(t);

				bad_fire += !f->armed || f->expires > now;
				f->armed = false;
				fired++;
				/* Sometimes re-arm from inside the loop. */
				if (xorshift(&rng) % 4 == 0)
					arm(&w, f, now + random_delay(&rng));
			}
			min = earliest_armed(items);
			missed += min <= now;
			next = timer_wheel_next_timeout(&w, now);
			/* After expiry nothing is due: 0 would spin. */
			if (min == UINT64_MAX)
				bad_timeout += next != -1;
			else
				bad_timeout += next <= 0 ||
					       (uint64_t)next > min - now;
		}
		for (int i = 0; i < MODEL_TIMERS; i++)
			bad_pending += timer_pending(&items[i].timer) !=
				       items[i].armed;
		min = earliest_armed(items);
		next = timer_wheel_next_timeout(&w, now);
		if (min == UINT64_MAX)
			bad_timeout += next != -1;
		else if (min <= now)
			bad_timeout += next != 0;
		else
			bad_timeout += next < 0 || (uint64_t)next > min - now;
	}
	CHECK_EQ_INT(bad_fire, 0);
	CHECK_EQ_INT(bad_pending, 0);
	CHECK_EQ_INT(bad_timeout, 0);
	CHECK_EQ_INT(missed, 0);
	CHECK(fired > MODEL_STEPS / 10); /* the model did exercise expiry */
}
