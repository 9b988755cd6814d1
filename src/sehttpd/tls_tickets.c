// SPDX-License-Identifier: MIT
#include "tls_tickets.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

/* Fills buf from the kernel's generator; tickets are worth no less. */
static int random_fill(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int key_make(struct tls_ticket_key *k, int64_t now_s)
{
	if (random_fill(k->name, sizeof(k->name)) ||
	    random_fill(k->aes, sizeof(k->aes)) ||
	    random_fill(k->hmac, sizeof(k->hmac)))
		return -1;
	k->created_s = now_s;
	k->valid = true;
	return 0;
}

int tls_tickets_init(struct tls_ticket_ring *r, int64_t now_s)
{
	memset(r, 0, sizeof(*r));
	if (key_make(&r->current, now_s))
		return -1;
	return pthread_mutex_init(&r->lock, NULL) ? -1 : 0;
}

void tls_tickets_destroy(struct tls_ticket_ring *r)
{
	pthread_mutex_destroy(&r->lock);
	/* Keys that outlive their use could open recorded sessions. */
	explicit_bzero(&r->current, sizeof(r->current));
	explicit_bzero(&r->previous, sizeof(r->previous));
}

/* Under the lock: the current key is too old to seal, so a new one does. */
static int rotate_if_due(struct tls_ticket_ring *r, int64_t now_s)
{
	struct tls_ticket_key next;

	if (now_s - r->current.created_s < TLS_TICKET_ROTATE_S)
		return 0;
	if (key_make(&next, now_s))
		return -1;
	/* Two periods late: the current key's tickets are too old too. */
	if (now_s - r->current.created_s < 2 * TLS_TICKET_ROTATE_S)
		r->previous = r->current;
	else
		r->previous.valid = false;
	r->current = next;
	explicit_bzero(&next, sizeof(next));
	return 0;
}

int tls_tickets_seal_key(struct tls_ticket_ring *r, int64_t now_s,
			 struct tls_ticket_key *out)
{
	int ret;

	pthread_mutex_lock(&r->lock);
	ret = rotate_if_due(r, now_s);
	if (ret == 0)
		*out = r->current;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

static bool key_opens(const struct tls_ticket_key *k, const uint8_t *name,
		      int64_t now_s)
{
	return k->valid && now_s - k->created_s < 2 * TLS_TICKET_ROTATE_S &&
	       memcmp(k->name, name, TLS_TICKET_NAME_LEN) == 0;
}

enum tls_ticket_match tls_tickets_open_key(struct tls_ticket_ring *r,
					   const uint8_t *name, int64_t now_s,
					   struct tls_ticket_key *out)
{
	enum tls_ticket_match m = TLS_TICKET_UNKNOWN;

	pthread_mutex_lock(&r->lock);
	/* A rotation due now makes the current key the previous one. */
	if (rotate_if_due(r, now_s) == 0) {
		if (key_opens(&r->current, name, now_s)) {
			*out = r->current;
			m = TLS_TICKET_CURRENT;
		} else if (key_opens(&r->previous, name, now_s)) {
			*out = r->previous;
			m = TLS_TICKET_RENEW;
		}
	}
	pthread_mutex_unlock(&r->lock);
	return m;
}
