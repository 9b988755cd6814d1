/* SPDX-License-Identifier: MIT */
/*
 * Stackful coroutines with a native context switch (arch/coro_switch_*.S).
 * Each coroutine lives in one mmap'ed block from a per-thread pool: a guard
 * page, its stack, and an extra region for the user.  Resume and yield are a
 * plain function call's worth of register saving: no syscall, no allocation.
 */
#ifndef SEHTTPD_CORO_H
#define SEHTTPD_CORO_H

#include <stdbool.h>
#include <stddef.h>

/* coro_resume()'s result once the coroutine's function has returned. */
#define CORO_FINISHED (-1)
/* How many defers a coroutine can hold at once. */
#define CORO_MAX_DEFERS 16

struct coro;
struct coro_pool;
typedef void (*coro_fn)(struct coro *coro, void *data);

/*
 * A per-thread pool of coroutine blocks, each a stack of stack_size bytes
 * (rounded up to whole pages, with a PROT_NONE guard page below it) and an
 * extra region of extra_size bytes (coro_extra()).  At most max_free released
 * blocks are kept for reuse; more are unmapped.  Not thread-safe.
 */
struct coro_pool *coro_pool_new(size_t stack_size, size_t extra_size,
				unsigned max_free);
/* Unmaps the kept blocks; every coroutine must have been released. */
void coro_pool_free(struct coro_pool *pool);
/* Blocks kept for reuse, and blocks mapped in all (in use or kept). */
unsigned coro_pool_free_count(const struct coro_pool *pool);
unsigned coro_pool_mapped_count(const struct coro_pool *pool);
/*
 * Unmaps the kept blocks that no coroutine took since the last trim (the
 * fewest kept meanwhile), least recently released first, down to keep:
 * the pages a burst touched go back once it has been over for a whole
 * interval between trims.  Returns how many were unmapped.
 */
unsigned coro_pool_trim(struct coro_pool *pool, unsigned keep);

/* A suspended coroutine that runs fn(coro, data) when first resumed; NULL
 * (errno ENOMEM) when no block can be mapped. */
struct coro *coro_new(struct coro_pool *pool, coro_fn fn, void *data);
/* Switches into the coroutine until it yields or returns.  Returns the value
 * it passed to coro_yield(), or CORO_FINISHED once fn has returned (also for
 * every later call). */
int coro_resume(struct coro *coro);
/* From inside the coroutine: switches back to whoever resumed it, passing
 * value (anything but CORO_FINISHED), and returns when resumed again. */
void coro_yield(struct coro *coro, int value);
/*
 * Runs the pending defers, most recent first, and returns the block to the
 * pool.  Allowed on a finished coroutine and on a suspended one, which is
 * then never resumed: its stack is simply dropped, so its frames get no
 * chance to clean up; whatever they own must be registered with coro_defer().
 */
void coro_release(struct coro *coro);
/* The extra_size region, 64-byte aligned; not cleared when a block is
 * reused. */
void *coro_extra(struct coro *coro);
bool coro_finished(const struct coro *coro);

/* Registers fn(arg) to run at coro_release() (or coro_defer_run_to()).
 * Returns 0, or -1 when CORO_MAX_DEFERS are already pending. */
int coro_defer(struct coro *coro, void (*fn)(void *), void *arg);
/* Forgets the latest pending fn(arg), if any: its caller ran it itself. */
void coro_undefer(struct coro *coro, void (*fn)(void *), void *arg);
/* The number of pending defers: a mark for coro_defer_run_to(). */
unsigned coro_defer_mark(const struct coro *coro);
/* Runs, most recent first, the defers registered since mark was taken. */
void coro_defer_run_to(struct coro *coro, unsigned mark);

#endif /* SEHTTPD_CORO_H */
