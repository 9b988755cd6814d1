/* SPDX-License-Identifier: MIT */
/*
 * Intrusive lists after the Linux kernel's <linux/list.h>: a node is
 * embedded in its owner, found again with container_of, and adding or
 * removing one is O(1) and never allocates.
 *  - struct list_head: circular and doubly linked, with a head of the same
 *    type (an LRU order, a worker's connections);
 *  - struct hlist_head/hlist_node: a head of one pointer (for tables of
 *    many mostly empty heads: hash buckets, timer-wheel slots), nodes that
 *    still unlink in O(1).
 */
#ifndef SEHTTPD_LIST_H
#define SEHTTPD_LIST_H

#include <stdbool.h>
#include <stddef.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_insert_between(struct list_head *n,
				       struct list_head *prev,
				       struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Adds n first (after h). */
static inline void list_add(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h, h->next);
}

/* Adds n last (before h). */
static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h->prev, h);
}

/* Unlinks n and leaves it an empty list of its own. */
static inline void list_del_init(struct list_head *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	INIT_LIST_HEAD(n);
}

/* Unlinks n, which must be added again before any other use. */
static inline void list_del(struct list_head *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	n->next = n->prev = NULL;
}

/* Moves n to the front of h. */
static inline void list_move(struct list_head *n, struct list_head *h)
{
	list_del_init(n);
	list_add(n, h);
}

/* Moves every entry of list to the front of head, and empties list. */
static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (list_empty(list))
		return;
	list->next->prev = head;
	list->prev->next = head->next;
	head->next->prev = list->prev;
	head->next = list->next;
	INIT_LIST_HEAD(list);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_last_entry(h, type, member) list_entry((h)->prev, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_for_each_entry(pos, h, member)                       \
	for (pos = list_first_entry(h, __typeof__(*pos), member); \
	     &pos->member != (h); pos = list_next_entry(pos, member))

/* As list_for_each_entry, but pos may be removed in the body. */
#define list_for_each_entry_safe(pos, n, h, member)               \
	for (pos = list_first_entry(h, __typeof__(*pos), member), \
	    n = list_next_entry(pos, member);                     \
	     &pos->member != (h); pos = n, n = list_next_entry(n, member))

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next;
	struct hlist_node **pprev; /* NULL while on no list */
};

/* A zeroed hlist_head or hlist_node is initialised too. */
static inline void INIT_HLIST_NODE(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline bool hlist_empty(const struct hlist_head *h)
{
	return !h->first;
}

static inline bool hlist_unhashed(const struct hlist_node *n)
{
	return !n->pprev;
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (n->next)
		n->next->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

/* Unlinks n (a no-op when on no list) and marks it so. */
static inline void hlist_del_init(struct hlist_node *n)
{
	if (hlist_unhashed(n))
		return;
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	INIT_HLIST_NODE(n);
}

/* Moves every node of from to the empty head to. */
static inline void hlist_move_list(struct hlist_head *from,
				   struct hlist_head *to)
{
	to->first = from->first;
	if (to->first)
		to->first->pprev = &to->first;
	from->first = NULL;
}

#define hlist_entry(ptr, type, member) container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) \
	((ptr) ? hlist_entry(ptr, type, member) : NULL)

#define hlist_for_each_entry(pos, h, member)                                 \
	for (pos = hlist_entry_safe((h)->first, __typeof__(*pos), member);   \
	     pos; pos = hlist_entry_safe(pos->member.next, __typeof__(*pos), \
					 member))

/* As hlist_for_each_entry, but pos may be removed in the body; n is a
 * struct hlist_node *. */
#define hlist_for_each_entry_safe(pos, n, h, member)                       \
	for (pos = hlist_entry_safe((h)->first, __typeof__(*pos), member); \
	     pos && ((n) = pos->member.next, 1);                           \
	     pos = hlist_entry_safe(n, __typeof__(*pos), member))

#endif /* SEHTTPD_LIST_H */
