// SPDX-License-Identifier: MIT
/*
 * A coroutine's block, from low to high addresses:
 *
 *   [guard page, PROT_NONE][stack ... top][struct coro][extra region]
 *
 * so a stack overflow faults on the guard page instead of silently eating
 * another block.  The context switch itself is in arch/coro_switch_*.S.
 */
#include "coro.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define CORO_ASAN 1
#else
#define CORO_ASAN 0
#endif

/* The registers a function call preserves, plus where to continue. */
#if defined(__x86_64__)
struct coro_ctx {
	void *rsp, *rip;
	void *rbx, *rbp, *r12, *r13, *r14, *r15;
	uint32_t mxcsr;
	uint16_t fpucw;
};
/* The offsets coro_switch_x86_64.S uses. */
_Static_assert(offsetof(struct coro_ctx, rip) == 8, "ctx layout");
_Static_assert(offsetof(struct coro_ctx, r15) == 56, "ctx layout");
_Static_assert(offsetof(struct coro_ctx, mxcsr) == 64, "ctx layout");
_Static_assert(offsetof(struct coro_ctx, fpucw) == 68, "ctx layout");
#elif defined(__aarch64__)
struct coro_ctx {
	void *x[12]; /* x19-x30; x29 is the frame pointer, x30 the return */
	void *sp;
	uint64_t d[8]; /* d8-d15 */
	uint64_t fpcr;
};
/* The offsets coro_switch_aarch64.S uses. */
_Static_assert(offsetof(struct coro_ctx, sp) == 96, "ctx layout");
_Static_assert(offsetof(struct coro_ctx, d) == 104, "ctx layout");
_Static_assert(offsetof(struct coro_ctx, fpcr) == 168, "ctx layout");
#else
#error "coro: no context switch for this architecture"
#endif

/* Defined in arch/coro_switch_$(ARCH).S. */
void coro_switch(struct coro_ctx *from, const struct coro_ctx *to);
void coro_trampoline(void);

struct coro_defer {
	void (*fn)(void *);
	void *arg;
};

struct coro {
	struct coro_ctx ctx; /* the coroutine's, while it is suspended */
	struct coro_ctx resumer; /* its resumer's, while it runs */
	struct coro_pool *pool;
	coro_fn fn;
	void *data;
	void *extra;
	struct coro *next_free;
	int value; /* passed from coro_yield() to coro_resume() */
	bool running;
	bool finished;
	unsigned ndefers;
	struct coro_defer defers[CORO_MAX_DEFERS];
#if CORO_ASAN
	void *fake_stack; /* ASan's, for use-after-return detection */
	const void *resumer_stack;
	size_t resumer_stack_size;
#endif
};

struct coro_pool {
	size_t page_size;
	size_t stack_size; /* whole pages */
	size_t map_size; /* guard page, stack, struct coro and extra */
	unsigned max_free;
	unsigned nfree;
	unsigned nmapped;
	unsigned fewest_free; /* the least nfree since the last trim */
	struct coro *free_list;
};

#define EXTRA_ALIGN 64

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

static size_t header_size(void)
{
	return round_up(sizeof(struct coro), EXTRA_ALIGN);
}

static char *stack_bottom(const struct coro_pool *pool, struct coro *coro)
{
	return (char *)coro - pool->stack_size;
}

static char *block_base(const struct coro_pool *pool, struct coro *coro)
{
	return stack_bottom(pool, coro) - pool->page_size;
}

struct coro_pool *coro_pool_new(size_t stack_size, size_t extra_size,
				unsigned max_free)
{
	struct coro_pool *pool;
	long page = sysconf(_SC_PAGESIZE);
	size_t tail;

	if (page <= 0 || stack_size == 0 || stack_size > SIZE_MAX / 4 ||
	    extra_size > SIZE_MAX / 4) {
		errno = EINVAL;
		return NULL;
	}
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->page_size = (size_t)page;
	pool->stack_size = round_up(stack_size, pool->page_size);
	tail = round_up(header_size() + extra_size, pool->page_size);
	pool->map_size = pool->page_size + pool->stack_size + tail;
	pool->max_free = max_free;
	return pool;
}

static void unmap_block(struct coro_pool *pool, struct coro *coro)
{
	munmap(block_base(pool, coro), pool->map_size);
	pool->nmapped--;
}

void coro_pool_free(struct coro_pool *pool)
{
	if (!pool)
		return;
	assert(pool->nmapped == pool->nfree);
	while (pool->free_list) {
		struct coro *coro = pool->free_list;

		pool->free_list = coro->next_free;
		unmap_block(pool, coro);
	}
	free(pool);
}

unsigned coro_pool_free_count(const struct coro_pool *pool)
{
	return pool->nfree;
}

unsigned coro_pool_mapped_count(const struct coro_pool *pool)
{
	return pool->nmapped;
}

unsigned coro_pool_trim(struct coro_pool *pool, unsigned keep)
{
	unsigned idle = pool->fewest_free < pool->nfree ? pool->fewest_free :
							  pool->nfree;
	unsigned n = idle > keep ? idle - keep : 0;
	struct coro **link = &pool->free_list;

	/* The list is most recently released first: the coldest are last. */
	for (unsigned i = 0; i < pool->nfree - n; i++)
		link = &(*link)->next_free;
	while (*link) {
		struct coro *coro = *link;

		*link = coro->next_free;
		unmap_block(pool, coro);
		pool->nfree--;
	}
	pool->fewest_free = pool->nfree;
	return n;
}

static struct coro *map_block(struct coro_pool *pool)
{
	char *base = mmap(NULL, pool->map_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (base == MAP_FAILED)
		return NULL;
	if (mprotect(base, pool->page_size, PROT_NONE)) {
		munmap(base, pool->map_size);
		return NULL;
	}
	pool->nmapped++;
	return (struct coro *)(base + pool->page_size + pool->stack_size);
}

/* Runs on the coroutine's stack, called by coro_trampoline. */
static void coro_main(void *arg)
{
	struct coro *coro = arg;

#if CORO_ASAN
	__sanitizer_finish_switch_fiber(NULL, &coro->resumer_stack,
					&coro->resumer_stack_size);
#endif
	coro->fn(coro, coro->data);
	coro->finished = true;
	coro->value = CORO_FINISHED;
#if CORO_ASAN
	/* NULL: this stack is done for, ASan may drop its fake frames. */
	__sanitizer_start_switch_fiber(NULL, coro->resumer_stack,
				       coro->resumer_stack_size);
#endif
	/* The trampoline switches back to coro->resumer. */
}

static void init_context(struct coro *coro)
{
	struct coro_ctx *ctx = &coro->ctx;
	void *top = coro; /* page-aligned, so 16-byte aligned */

	memset(ctx, 0, sizeof(*ctx));
#if defined(__x86_64__)
	ctx->rsp = top;
	ctx->rip = (void *)coro_trampoline;
	ctx->rbx = (void *)coro_main;
	ctx->r12 = coro;
	ctx->r13 = &coro->ctx;
	ctx->r14 = &coro->resumer;
	/* Start with the creator's floating-point modes. */
	__asm__("stmxcsr %0\n\tfnstcw %1" : "=m"(ctx->mxcsr), "=m"(ctx->fpucw));
#elif defined(__aarch64__)
	ctx->sp = top;
	ctx->x[11] = (void *)coro_trampoline; /* x30 */
	ctx->x[0] = (void *)coro_main; /* x19 */
	ctx->x[1] = coro;
	ctx->x[2] = &coro->ctx;
	ctx->x[3] = &coro->resumer;
	__asm__("mrs %0, fpcr" : "=r"(ctx->fpcr));
#endif
}

struct coro *coro_new(struct coro_pool *pool, coro_fn fn, void *data)
{
	struct coro *coro = pool->free_list;

	if (coro) {
		pool->free_list = coro->next_free;
		if (--pool->nfree < pool->fewest_free)
			pool->fewest_free = pool->nfree;
	} else {
		coro = map_block(pool);
		if (!coro) {
			errno = ENOMEM;
			return NULL;
		}
	}
	coro->pool = pool;
	coro->fn = fn;
	coro->data = data;
	coro->extra = (char *)coro + header_size();
	coro->next_free = NULL;
	coro->value = 0;
	coro->running = false;
	coro->finished = false;
	coro->ndefers = 0;
#if CORO_ASAN
	coro->fake_stack = NULL;
	coro->resumer_stack = NULL;
	coro->resumer_stack_size = 0;
#endif
	init_context(coro);
	return coro;
}

int coro_resume(struct coro *coro)
{
#if CORO_ASAN
	void *fake_stack;
#endif

	if (coro->finished)
		return CORO_FINISHED;
	assert(!coro->running);
	coro->running = true;
#if CORO_ASAN
	__sanitizer_start_switch_fiber(&fake_stack,
				       stack_bottom(coro->pool, coro),
				       coro->pool->stack_size);
#endif
	coro_switch(&coro->resumer, &coro->ctx);
#if CORO_ASAN
	__sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
	coro->running = false;
	return coro->value;
}

void coro_yield(struct coro *coro, int value)
{
	assert(coro->running && value != CORO_FINISHED);
	coro->value = value;
#if CORO_ASAN
	__sanitizer_start_switch_fiber(&coro->fake_stack, coro->resumer_stack,
				       coro->resumer_stack_size);
#endif
	coro_switch(&coro->ctx, &coro->resumer);
#if CORO_ASAN
	/* The next resumer may run on another stack than the last one. */
	__sanitizer_finish_switch_fiber(coro->fake_stack, &coro->resumer_stack,
					&coro->resumer_stack_size);
#endif
}

void coro_release(struct coro *coro)
{
	struct coro_pool *pool = coro->pool;

	assert(!coro->running);
	coro_defer_run_to(coro, 0);
#if CORO_ASAN
	/* A suspended coroutine's frames leave their redzones poisoned. */
	__asan_unpoison_memory_region(stack_bottom(pool, coro),
				      pool->stack_size);
#endif
	if (pool->nfree >= pool->max_free) {
		unmap_block(pool, coro);
		return;
	}
	coro->next_free = pool->free_list;
	pool->free_list = coro;
	pool->nfree++;
}

void *coro_extra(struct coro *coro)
{
	return coro->extra;
}

bool coro_finished(const struct coro *coro)
{
	return coro->finished;
}

int coro_defer(struct coro *coro, void (*fn)(void *), void *arg)
{
	if (coro->ndefers >= CORO_MAX_DEFERS)
		return -1;
	coro->defers[coro->ndefers].fn = fn;
	coro->defers[coro->ndefers].arg = arg;
	coro->ndefers++;
	return 0;
}

static void forgotten(void *arg)
{
	(void)arg;
}

void coro_undefer(struct coro *coro, void (*fn)(void *), void *arg)
{
	/* Left in place, so that the marks taken since stay right. */
	for (unsigned i = coro->ndefers; i-- > 0;) {
		struct coro_defer *d = &coro->defers[i];

		if (d->fn == fn && d->arg == arg) {
			d->fn = forgotten;
			return;
		}
	}
}

unsigned coro_defer_mark(const struct coro *coro)
{
	return coro->ndefers;
}

void coro_defer_run_to(struct coro *coro, unsigned mark)
{
	assert(mark <= coro->ndefers);
	/* One at a time, so a defer may register another. */
	while (coro->ndefers > mark) {
		struct coro_defer *d = &coro->defers[--coro->ndefers];

		d->fn(d->arg);
	}
}
