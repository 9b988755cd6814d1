// SPDX-License-Identifier: MIT
/* The session-ticket key ring: which key seals, which open, and when. */
#include "harness.h"

#include "sehttpd/tls_tickets.h"

#define T0 1000000

TEST(seals_with_one_key_within_a_period)
{
	struct tls_ticket_ring r;
	struct tls_ticket_key a, b;

	CHECK(tls_tickets_init(&r, T0) == 0);
	CHECK(tls_tickets_seal_key(&r, T0, &a) == 0);
	CHECK(tls_tickets_seal_key(&r, T0 + TLS_TICKET_ROTATE_S - 1, &b) == 0);
	CHECK(memcmp(a.name, b.name, sizeof(a.name)) == 0);
	CHECK(memcmp(a.aes, b.aes, sizeof(a.aes)) == 0);
	tls_tickets_destroy(&r);
}

TEST(rotates_and_the_old_key_still_opens_once)
{
	struct tls_ticket_ring r;
	struct tls_ticket_key a, b, got;

	CHECK(tls_tickets_init(&r, T0) == 0);
	CHECK(tls_tickets_seal_key(&r, T0, &a) == 0);
	CHECK(tls_tickets_seal_key(&r, T0 + TLS_TICKET_ROTATE_S, &b) == 0);
	CHECK(memcmp(a.name, b.name, sizeof(a.name)) != 0);
	CHECK(memcmp(a.aes, b.aes, sizeof(a.aes)) != 0);
	CHECK(memcmp(a.hmac, b.hmac, sizeof(a.hmac)) != 0);
	/* The old key opens, and asks for a fresh ticket. */
	CHECK(tls_tickets_open_key(&r, a.name, T0 + TLS_TICKET_ROTATE_S + 1,
				   &got) == TLS_TICKET_RENEW);
	CHECK(memcmp(got.aes, a.aes, sizeof(a.aes)) == 0);
	CHECK(tls_tickets_open_key(&r, b.name, T0 + TLS_TICKET_ROTATE_S + 1,
				   &got) == TLS_TICKET_CURRENT);
	CHECK(memcmp(got.hmac, b.hmac, sizeof(b.hmac)) == 0);
	tls_tickets_destroy(&r);
}

TEST(a_ticket_expires_after_two_periods)
{
	struct tls_ticket_ring r;
	struct tls_ticket_key a, got;

	CHECK(tls_tickets_init(&r, T0) == 0);
	CHECK(tls_tickets_seal_key(&r, T0, &a) == 0);
	CHECK(tls_tickets_open_key(&r, a.name, T0 + 2 * TLS_TICKET_ROTATE_S - 1,
				   &got) == TLS_TICKET_RENEW);
	CHECK(tls_tickets_open_key(&r, a.name, T0 + 2 * TLS_TICKET_ROTATE_S,
				   &got) == TLS_TICKET_UNKNOWN);
	tls_tickets_destroy(&r);
}

TEST(a_long_idle_server_forgets_both_keys)
{
	struct tls_ticket_ring r;
	struct tls_ticket_key a, got;

	CHECK(tls_tickets_init(&r, T0) == 0);
	CHECK(tls_tickets_seal_key(&r, T0, &a) == 0);
	/* Nothing happened for three periods: the first look rotates. */
	CHECK(tls_tickets_open_key(&r, a.name, T0 + 3 * TLS_TICKET_ROTATE_S,
				   &got) == TLS_TICKET_UNKNOWN);
	CHECK(!r.previous.valid);
	tls_tickets_destroy(&r);
}

TEST(an_unknown_name_opens_nothing)
{
	struct tls_ticket_ring r;
	struct tls_ticket_key got;
	uint8_t name[TLS_TICKET_NAME_LEN] = { 0 };

	CHECK(tls_tickets_init(&r, T0) == 0);
	CHECK(tls_tickets_open_key(&r, name, T0, &got) == TLS_TICKET_UNKNOWN);
	tls_tickets_destroy(&r);
}
