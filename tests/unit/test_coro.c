// SPDX-License-Identifier: MIT
/* Coroutines: switching, stacks, defers, the pool and the register ABI. */
#include <errno.h>
#include <fenv.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "sehttpd/coro.h"

#define STACK_SIZE (256 * 1024)

static struct coro_pool *new_pool(size_t stack_size, size_t extra_size,
				  unsigned max_free)
{
	struct coro_pool *pool =
		coro_pool_new(stack_size, extra_size, max_free);

	if (!pool) {
		perror("coro_pool_new");
		abort();
	}
	return pool;
}

/* --- values both ways ---------------------------------------------------- */

struct ping {
	int received[8];
	int nreceived;
};

/* Yields 10, 20, 30; records what the resumer left in *data each time. */
static void ping_fn(struct coro *coro, void *data)
{
	struct ping *p = data;

	for (int i = 1; i <= 3; i++) {
		p->received[p->nreceived++] = p->received[7];
		coro_yield(coro, i * 10);
	}
}

TEST(ping_pong)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 4);
	struct ping p = { .nreceived = 0 };
	struct coro *coro = coro_new(pool, ping_fn, &p);

	CHECK(coro != NULL);
	CHECK(!coro_finished(coro));
	for (int i = 1; i <= 3; i++) {
		p.received[7] = 100 + i;
		CHECK_EQ_INT(coro_resume(coro), i * 10);
		CHECK(!coro_finished(coro));
	}
	CHECK_EQ_INT(coro_resume(coro), CORO_FINISHED);
	CHECK(coro_finished(coro));
	/* Resuming a finished coroutine is harmless. */
	CHECK_EQ_INT(coro_resume(coro), CORO_FINISHED);
	CHECK_EQ_INT(p.nreceived, 3);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(p.received[i], 101 + i);
	coro_release(coro);
	coro_pool_free(pool);
}

static void return_at_once(struct coro *coro, void *data)
{
	(void)coro;
	*(int *)data = 1;
}

TEST(returns_without_yielding)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 4);
	int ran = 0;
	struct coro *coro = coro_new(pool, return_at_once, &ran);

	CHECK_EQ_INT(ran, 0); /* runs only when resumed */
	CHECK_EQ_INT(coro_resume(coro), CORO_FINISHED);
	CHECK_EQ_INT(ran, 1);
	coro_release(coro);
	/* Never resumed at all. */
	ran = 0;
	coro = coro_new(pool, return_at_once, &ran);
	coro_release(coro);
	CHECK_EQ_INT(ran, 0);
	coro_pool_free(pool);
}

/* --- many coroutines interleaved ----------------------------------------- */

#define NINTERLEAVED 50

struct counter {
	int id;
	int steps;
};

static void count_fn(struct coro *coro, void *data)
{
	struct counter *c = data;

	for (int i = 0; i < c->steps; i++)
		coro_yield(coro, c->id * 1000 + i);
}

TEST(many_interleaved)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, NINTERLEAVED);
	struct counter counters[NINTERLEAVED];
	struct coro *coros[NINTERLEAVED];
	int next[NINTERLEAVED] = { 0 };
	int live = NINTERLEAVED, rounds = 0;

	for (int i = 0; i < NINTERLEAVED; i++) {
		counters[i] = (struct counter){ i, 1 + i % 7 * 5 };
		coros[i] = coro_new(pool, count_fn, &counters[i]);
		CHECK(coros[i] != NULL);
	}
	while (live && rounds++ < 100) {
		for (int i = 0; i < NINTERLEAVED; i++) {
			int r;

			if (!coros[i])
				continue;
			r = coro_resume(coros[i]);
			if (r == CORO_FINISHED) {
				CHECK_EQ_INT(next[i], counters[i].steps);
				coro_release(coros[i]);
				coros[i] = NULL;
				live--;
				continue;
			}
			CHECK_EQ_INT(r, i * 1000 + next[i]);
			next[i]++;
		}
	}
	CHECK_EQ_INT(live, 0);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), NINTERLEAVED);
	coro_pool_free(pool);
}

/* A coroutine that resumes another: each must return to its own resumer. */
static void inner_fn(struct coro *coro, void *data)
{
	(void)data;
	coro_yield(coro, 1);
	coro_yield(coro, 2);
}

static void outer_fn(struct coro *coro, void *data)
{
	struct coro *inner = data;

	coro_yield(coro, 10 + coro_resume(inner));
	coro_yield(coro, 10 + coro_resume(inner));
	coro_yield(coro, coro_resume(inner) == CORO_FINISHED ? 13 : 0);
}

TEST(nested_resume)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 4);
	struct coro *inner = coro_new(pool, inner_fn, NULL);
	struct coro *outer = coro_new(pool, outer_fn, inner);

	CHECK_EQ_INT(coro_resume(outer), 11);
	CHECK_EQ_INT(coro_resume(outer), 12);
	CHECK_EQ_INT(coro_resume(outer), 13);
	CHECK_EQ_INT(coro_resume(outer), CORO_FINISHED);
	CHECK(coro_finished(inner));
	coro_release(outer);
	coro_release(inner);
	coro_pool_free(pool);
}

/* --- the stack ----------------------------------------------------------- */

#define FRAME_BYTES 512

struct deep {
	struct coro *coro;
	uintptr_t top; /* an address in the coroutine's first frame */
	uintptr_t lowest; /* the deepest frame's */
	unsigned depth;
};

/* Fills a frame, yields from the bottom, and checks every frame survived. */
static __attribute__((noinline)) unsigned long recurse(struct deep *d,
						       unsigned level)
{
	volatile unsigned char frame[FRAME_BYTES];
	unsigned long sum = 0;

	for (unsigned i = 0; i < FRAME_BYTES; i++)
		frame[i] = (unsigned char)(level * 31 + i);
	if ((uintptr_t)__builtin_frame_address(0) < d->lowest)
		d->lowest = (uintptr_t)__builtin_frame_address(0);
	if (level + 1 < d->depth)
		sum = recurse(d, level + 1);
	else
		coro_yield(d->coro, 1);
	for (unsigned i = 0; i < FRAME_BYTES; i++)
		if (frame[i] != (unsigned char)(level * 31 + i))
			return 0; /* breaks the sum */
	return sum + frame[level % FRAME_BYTES];
}

static unsigned long expected_sum(unsigned depth)
{
	unsigned long sum = 0;

	for (unsigned level = 0; level < depth; level++)
		sum += (unsigned char)(level * 31 + level % FRAME_BYTES);
	return sum;
}

static void deep_fn(struct coro *coro, void *data)
{
	struct deep *d = data;
	unsigned long sum;

	/* Frame addresses, not locals': under ASan's use-after-return
	 * detection, locals live on a heap "fake stack". */
	d->top = (uintptr_t)__builtin_frame_address(0);
	d->lowest = d->top;
	sum = recurse(d, 0);
	coro_yield(coro, sum == expected_sum(d->depth) ? 2 : 3);
}

TEST(deep_recursion)
{
	/* Half of a 1 MiB stack in FRAME_BYTES frames (more under ASan). */
	struct coro_pool *pool = new_pool(1024 * 1024, 0, 1);
	struct deep d = { .depth = 512 * 1024 / FRAME_BYTES };

	d.coro = coro_new(pool, deep_fn, &d);
	CHECK_EQ_INT(coro_resume(d.coro), 1); /* at the bottom */
	CHECK(d.top - d.lowest >= 512 * 1024);
	CHECK(d.top - d.lowest < 1024 * 1024);
	CHECK_EQ_INT(coro_resume(d.coro), 2);
	CHECK_EQ_INT(coro_resume(d.coro), CORO_FINISHED);
	coro_release(d.coro);
	coro_pool_free(pool);
}

/* --- overflowing the stack hits the guard page --------------------------- */

#define SMALL_STACK (64 * 1024)

static volatile uintptr_t overflow_top;
static volatile bool overflow_more = true; /* hides the endless recursion */

static __attribute__((noinline)) unsigned overflow(unsigned level)
{
	volatile unsigned char frame[FRAME_BYTES];

	frame[0] = (unsigned char)level;
	if (!overflow_more)
		return frame[0];
	return overflow(level + 1) + frame[0];
}

static void overflow_fn(struct coro *coro, void *data)
{
	(void)coro;
	overflow_top = (uintptr_t)__builtin_frame_address(0);
	*(unsigned *)data = overflow(0);
}

static void on_segv(int sig, siginfo_t *info, void *uc)
{
	uintptr_t addr = (uintptr_t)info->si_addr;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	(void)sig;
	(void)uc;
	/* The fault must come once the stack's size is used up, not later. */
	if (addr < overflow_top && overflow_top - addr >= SMALL_STACK - page &&
	    overflow_top - addr <= SMALL_STACK + 2 * page)
		_exit(7);
	_exit(8);
}

TEST(overflow_faults_on_guard_page)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		static char altstack[64 * 1024];
		stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
		struct sigaction sa = { .sa_sigaction = on_segv,
					.sa_flags = SA_SIGINFO | SA_ONSTACK };
		struct coro_pool *pool = new_pool(SMALL_STACK, 0, 1);
		unsigned result = 0;

		sigaltstack(&ss, NULL);
		sigaction(SIGSEGV, &sa, NULL);
		coro_resume(coro_new(pool, overflow_fn, &result));
		_exit(9);
	}
	CHECK(pid > 0);
	CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ_INT(WEXITSTATUS(status), 7);
}

/* --- defers -------------------------------------------------------------- */

struct log {
	char text[64];
	int len;
};

struct log_entry {
	struct log *log;
	char c;
};

static void log_append(void *arg)
{
	struct log_entry *e = arg;

	e->log->text[e->log->len++] = e->c;
	e->log->text[e->log->len] = '\0';
}

static void noop(void *arg)
{
	(void)arg;
}

TEST(defer_order_and_marks)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 4);
	struct coro *coro = coro_new(pool, return_at_once, &(int){ 0 });
	struct log log = { .len = 0 };
	struct log_entry e[5];
	unsigned mark;

	for (int i = 0; i < 5; i++)
		e[i] = (struct log_entry){ &log, (char)('a' + i) };
	CHECK_EQ_INT(coro_defer_mark(coro), 0);
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[0]), 0);
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[1]), 0);
	mark = coro_defer_mark(coro);
	CHECK_EQ_INT(mark, 2);
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[2]), 0);
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[3]), 0);
	coro_defer_run_to(coro, mark);
	CHECK_EQ_STR(log.text, "dc");
	CHECK_EQ_INT(coro_defer_mark(coro), 2);
	coro_defer_run_to(coro, mark); /* nothing new: runs nothing */
	CHECK_EQ_STR(log.text, "dc");
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[4]), 0);
	coro_release(coro);
	CHECK_EQ_STR(log.text, "dceba");
	coro_pool_free(pool);
}

TEST(undefer_forgets_the_latest_and_keeps_marks)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 4);
	struct coro *coro = coro_new(pool, return_at_once, &(int){ 0 });
	struct log log = { .len = 0 };
	struct log_entry e[3];
	unsigned mark;

	for (int i = 0; i < 3; i++)
		e[i] = (struct log_entry){ &log, (char)('a' + i) };
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[0]), 0);
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[1]), 0);
	mark = coro_defer_mark(coro);
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[1]), 0);
	CHECK_EQ_INT(coro_defer(coro, log_append, &e[2]), 0);
	/* The later of two alike goes; the other, under the mark, stays. */
	coro_undefer(coro, log_append, &e[1]);
	coro_undefer(coro, noop, &e[2]); /* none such: nothing goes */
	CHECK_EQ_INT(coro_defer_mark(coro), 4);
	coro_defer_run_to(coro, mark);
	CHECK_EQ_STR(log.text, "c");
	coro_release(coro);
	CHECK_EQ_STR(log.text, "cba");
	coro_pool_free(pool);
}

TEST(defer_array_full)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 4);
	struct coro *coro = coro_new(pool, return_at_once, &(int){ 0 });

	for (int i = 0; i < CORO_MAX_DEFERS; i++)
		CHECK_EQ_INT(coro_defer(coro, noop, NULL), 0);
	CHECK_EQ_INT(coro_defer(coro, noop, NULL), -1);
	coro_defer_run_to(coro, CORO_MAX_DEFERS - 1);
	CHECK_EQ_INT(coro_defer(coro, noop, NULL), 0);
	coro_release(coro);
	/* A reused block starts with no defers. */
	coro = coro_new(pool, return_at_once, &(int){ 0 });
	CHECK_EQ_INT(coro_defer_mark(coro), 0);
	coro_release(coro);
	coro_pool_free(pool);
}

struct suspended {
	struct log log;
	struct log_entry e[3];
	bool resumed_after_release;
};

/* Registers defers from the coroutine, then waits with big poisoned-under-
 * ASan frames on its stack. */
static __attribute__((noinline)) void wait_deep(struct coro *coro,
						struct suspended *s, int level)
{
	volatile char buf[1000];

	buf[level] = 1;
	if (level < 20)
		wait_deep(coro, s, level + 1);
	else
		coro_yield(coro, 1);
	s->resumed_after_release = buf[level] == 1;
}

static void suspended_fn(struct coro *coro, void *data)
{
	struct suspended *s = data;

	for (int i = 0; i < 3; i++) {
		s->e[i] = (struct log_entry){ &s->log, (char)('x' + i) };
		coro_defer(coro, log_append, &s->e[i]);
	}
	wait_deep(coro, s, 0);
}

static __attribute__((noinline)) unsigned long touch_stack(int level)
{
	volatile unsigned char buf[2000];

	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)i;
	return (level ? touch_stack(level - 1) : 0) + buf[level];
}

static void touch_fn(struct coro *coro, void *data)
{
	(void)coro;
	*(unsigned long *)data = touch_stack(60);
}

TEST(release_while_suspended)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 4);
	struct suspended s = { .log.len = 0 };
	struct coro *coro = coro_new(pool, suspended_fn, &s);
	struct coro *again;
	unsigned long sum = 0;

	CHECK_EQ_INT(coro_resume(coro), 1);
	CHECK(!coro_finished(coro));
	coro_release(coro);
	CHECK_EQ_STR(s.log.text, "zyx");
	CHECK(!s.resumed_after_release);
	/* The same block, stack and all, serves the next coroutine. */
	again = coro_new(pool, touch_fn, &sum);
	CHECK(again == coro);
	CHECK_EQ_INT(coro_resume(again), CORO_FINISHED);
	CHECK_EQ_INT(sum, 60 * 61 / 2);
	coro_release(again);
	coro_pool_free(pool);
}

/* --- the pool ------------------------------------------------------------ */

static bool is_mapped(const void *addr)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	return msync((void *)((uintptr_t)addr & ~(page - 1)), 1, MS_ASYNC) == 0;
}

TEST(pool_reuse_and_unmap)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 100, 2);
	struct coro *c[4], *first;

	first = coro_new(pool, return_at_once, &(int){ 0 });
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 1);
	coro_release(first);
	CHECK_EQ_INT(coro_pool_free_count(pool), 1);
	c[0] = coro_new(pool, return_at_once, &(int){ 0 });
	CHECK(c[0] == first);
	CHECK_EQ_INT(coro_pool_free_count(pool), 0);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 1);
	for (int i = 1; i < 4; i++) {
		c[i] = coro_new(pool, return_at_once, &(int){ 0 });
		CHECK(c[i] != NULL);
	}
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 4);
	for (int i = 0; i < 4; i++) {
		CHECK(is_mapped(c[i]));
		CHECK(is_mapped(coro_extra(c[i])));
		coro_release(c[i]);
	}
	/* The first two released are kept, the other two unmapped. */
	CHECK_EQ_INT(coro_pool_free_count(pool), 2);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 2);
	CHECK(is_mapped(c[0]) && is_mapped(c[1]));
	CHECK(!is_mapped(c[2]) && !is_mapped(c[3]));
	/* Reuse is most recently released first. */
	first = coro_new(pool, return_at_once, &(int){ 0 });
	CHECK(first == c[1]);
	coro_release(first);
	coro_pool_free(pool);
	CHECK(!is_mapped(c[0]) && !is_mapped(c[1]));
}

/* Only blocks kept since the previous trim go, the coldest first. */
TEST(pool_trim_keeps_what_was_used)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 100, 8);
	struct coro *c[6], *hot;

	for (int i = 0; i < 6; i++) {
		c[i] = coro_new(pool, return_at_once, &(int){ 0 });
		CHECK(c[i] != NULL);
	}
	for (int i = 0; i < 6; i++)
		coro_release(c[i]);
	/* All six were taken since the pool began: none idle yet. */
	CHECK_EQ_INT(coro_pool_trim(pool, 2), 0);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 6);
	/* A whole interval unused: down to two, the last released. */
	CHECK_EQ_INT(coro_pool_trim(pool, 2), 4);
	CHECK_EQ_INT(coro_pool_free_count(pool), 2);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 2);
	CHECK(is_mapped(c[5]) && is_mapped(c[4]));
	for (int i = 0; i < 4; i++)
		CHECK(!is_mapped(c[i]));
	/* One taken meanwhile: only the other is idle. */
	hot = coro_new(pool, return_at_once, &(int){ 0 });
	CHECK(hot == c[5]);
	coro_release(hot);
	CHECK_EQ_INT(coro_pool_trim(pool, 0), 1);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 1);
	CHECK(is_mapped(c[5]) && !is_mapped(c[4]));
	CHECK_EQ_INT(coro_pool_trim(pool, 0), 1);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 0);
	coro_pool_free(pool);
}

TEST(pool_out_of_memory)
{
	/* 2^48 bytes exceed the user address space: coro_new reports ENOMEM. */
	struct coro_pool *pool = new_pool((size_t)1 << 48, 0, 2);

	errno = 0;
	CHECK(coro_new(pool, return_at_once, &(int){ 0 }) == NULL);
	CHECK_EQ_INT(errno, ENOMEM);
	CHECK_EQ_INT(coro_pool_mapped_count(pool), 0);
	coro_pool_free(pool);
	CHECK(coro_pool_new(0, 0, 1) == NULL);
}

/* --- the extra region ---------------------------------------------------- */

#define EXTRA_SIZE 10000
#define NEXTRA 8

static void fill_extra(struct coro *coro, void *data)
{
	unsigned char *extra = coro_extra(coro);
	unsigned char tag = (unsigned char)(uintptr_t)data;

	memset(extra, tag, EXTRA_SIZE);
	coro_yield(coro, 1);
	for (size_t i = 0; i < EXTRA_SIZE; i++) {
		if (extra[i] != tag) {
			coro_yield(coro, 2);
			return;
		}
	}
}

TEST(extra_region)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, EXTRA_SIZE, NEXTRA);
	struct coro *c[NEXTRA];

	for (int i = 0; i < NEXTRA; i++) {
		c[i] = coro_new(pool, fill_extra, (void *)(uintptr_t)(i + 1));
		CHECK((uintptr_t)coro_extra(c[i]) % 64 == 0);
		CHECK_EQ_INT(coro_resume(c[i]), 1);
	}
	/* Every region is still intact after all were written. */
	for (int i = 0; i < NEXTRA; i++) {
		CHECK_EQ_INT(coro_resume(c[i]), CORO_FINISHED);
		coro_release(c[i]);
	}
	coro_pool_free(pool);
}

/* --- registers and floating point survive switches ----------------------- */

/*
 * test_coro_probe(fn, a, b, in, out) loads in[] into the callee-saved
 * registers, calls fn(a, b), and stores those registers to out[]: what a
 * function call must preserve, checked from both sides of a switch.
 */
long test_coro_probe(long (*fn)(void *, long), void *a, long b,
		     const uint64_t *in, uint64_t *out);

#if defined(__x86_64__)
#define PROBE_REGS 6 /* rbx, rbp, r12-r15 */
__asm__(".text\n"
	".globl test_coro_probe\n"
	".hidden test_coro_probe\n"
	".type test_coro_probe, @function\n"
	"test_coro_probe:\n"
	"	pushq %rbx\n"
	"	pushq %rbp\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	pushq %r8\n" /* out; also aligns the stack */
	"	movq %rdi, %rax\n"
	"	movq %rsi, %rdi\n"
	"	movq %rdx, %rsi\n"
	"	movq 0(%rcx), %rbx\n"
	"	movq 8(%rcx), %rbp\n"
	"	movq 16(%rcx), %r12\n"
	"	movq 24(%rcx), %r13\n"
	"	movq 32(%rcx), %r14\n"
	"	movq 40(%rcx), %r15\n"
	"	callq *%rax\n"
	"	popq %r8\n"
	"	movq %rbx, 0(%r8)\n"
	"	movq %rbp, 8(%r8)\n"
	"	movq %r12, 16(%r8)\n"
	"	movq %r13, 24(%r8)\n"
	"	movq %r14, 32(%r8)\n"
	"	movq %r15, 40(%r8)\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbp\n"
	"	popq %rbx\n"
	"	ret\n"
	".size test_coro_probe, . - test_coro_probe\n");
#elif defined(__aarch64__)
#define PROBE_REGS 18 /* x19-x28, d8-d15 (x29 stays the frame pointer) */
__asm__(".text\n"
	".globl test_coro_probe\n"
	".hidden test_coro_probe\n"
	".type test_coro_probe, %function\n"
	"test_coro_probe:\n"
	"	stp x29, x30, [sp, #-176]!\n"
	"	mov x29, sp\n"
	"	stp x19, x20, [sp, #16]\n"
	"	stp x21, x22, [sp, #32]\n"
	"	stp x23, x24, [sp, #48]\n"
	"	stp x25, x26, [sp, #64]\n"
	"	stp x27, x28, [sp, #80]\n"
	"	stp d8, d9, [sp, #96]\n"
	"	stp d10, d11, [sp, #112]\n"
	"	stp d12, d13, [sp, #128]\n"
	"	stp d14, d15, [sp, #144]\n"
	"	str x4, [sp, #160]\n"
	"	mov x9, x0\n"
	"	mov x0, x1\n"
	"	mov x1, x2\n"
	"	ldp x19, x20, [x3, #0]\n"
	"	ldp x21, x22, [x3, #16]\n"
	"	ldp x23, x24, [x3, #32]\n"
	"	ldp x25, x26, [x3, #48]\n"
	"	ldp x27, x28, [x3, #64]\n"
	"	ldp d8, d9, [x3, #80]\n"
	"	ldp d10, d11, [x3, #96]\n"
	"	ldp d12, d13, [x3, #112]\n"
	"	ldp d14, d15, [x3, #128]\n"
	"	blr x9\n"
	"	ldr x4, [sp, #160]\n"
	"	stp x19, x20, [x4, #0]\n"
	"	stp x21, x22, [x4, #16]\n"
	"	stp x23, x24, [x4, #32]\n"
	"	stp x25, x26, [x4, #48]\n"
	"	stp x27, x28, [x4, #64]\n"
	"	stp d8, d9, [x4, #80]\n"
	"	stp d10, d11, [x4, #96]\n"
	"	stp d12, d13, [x4, #112]\n"
	"	stp d14, d15, [x4, #128]\n"
	"	ldp x19, x20, [sp, #16]\n"
	"	ldp x21, x22, [sp, #32]\n"
	"	ldp x23, x24, [sp, #48]\n"
	"	ldp x25, x26, [sp, #64]\n"
	"	ldp x27, x28, [sp, #80]\n"
	"	ldp d8, d9, [sp, #96]\n"
	"	ldp d10, d11, [sp, #112]\n"
	"	ldp d12, d13, [sp, #128]\n"
	"	ldp d14, d15, [sp, #144]\n"
	"	ldp x29, x30, [sp], #176\n"
	"	ret\n"
	".size test_coro_probe, . - test_coro_probe\n");
#endif

#define PROBE_ROUNDS 10

static long probe_resume(void *coro, long unused)
{
	(void)unused;
	return coro_resume(coro);
}

static long probe_yield(void *coro, long value)
{
	coro_yield(coro, (int)value);
	return 0;
}

static void fill_pattern(uint64_t *regs, uint64_t seed)
{
	for (int i = 0; i < PROBE_REGS; i++)
		regs[i] = (seed + (uint64_t)i) * UINT64_C(0x9e3779b97f4a7c15);
}

static int count_mismatches(const uint64_t *in, const uint64_t *out)
{
	int n = 0;

	for (int i = 0; i < PROBE_REGS; i++)
		n += in[i] != out[i];
	return n;
}

static void probe_fn(struct coro *coro, void *data)
{
	int *mismatches = data;
	uint64_t in[PROBE_REGS], out[PROBE_REGS];

	for (long round = 1; round <= PROBE_ROUNDS; round++) {
		fill_pattern(in, 1000 + (uint64_t)round);
		test_coro_probe(probe_yield, coro, round, in, out);
		*mismatches += count_mismatches(in, out);
	}
}

TEST(callee_saved_registers)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 1);
	int coro_mismatches = 0;
	struct coro *coro = coro_new(pool, probe_fn, &coro_mismatches);
	uint64_t in[PROBE_REGS], out[PROBE_REGS];

	for (long round = 1; round <= PROBE_ROUNDS + 1; round++) {
		long r;

		fill_pattern(in, (uint64_t)round);
		r = test_coro_probe(probe_resume, coro, 0, in, out);
		CHECK_EQ_INT(r, round <= PROBE_ROUNDS ? round : CORO_FINISHED);
		CHECK_EQ_INT(count_mismatches(in, out), 0);
	}
	CHECK_EQ_INT(coro_mismatches, 0);
	coro_release(coro);
	coro_pool_free(pool);
}

struct fp_state {
	volatile double seed;
	double result;
	int round_inside;
};

/* Keeps several doubles live across each yield. */
static void fp_fn(struct coro *coro, void *data)
{
	struct fp_state *s = data;
	double a = s->seed, b = a * 1.5, c = a / 3.0, d = b - c, e = a * a;

	for (int i = 0; i < 5; i++) {
		coro_yield(coro, 1);
		a = a * 1.25 + b;
		b = b * 0.75 - c;
		c = c + d * 0.5;
		d = d * e / 7.0;
		e = e + a;
	}
	s->result = a + b + c + d + e;
	/* The rounding mode is the coroutine's own across switches. */
	fesetround(FE_UPWARD);
	coro_yield(coro, 2);
	s->round_inside = fegetround();
}

static double fp_reference(double seed)
{
	double a = seed, b = a * 1.5, c = a / 3.0, d = b - c, e = a * a;

	for (int i = 0; i < 5; i++) {
		a = a * 1.25 + b;
		b = b * 0.75 - c;
		c = c + d * 0.5;
		d = d * e / 7.0;
		e = e + a;
	}
	return a + b + c + d + e;
}

TEST(floating_point_survives)
{
	struct coro_pool *pool = new_pool(STACK_SIZE, 0, 1);
	struct fp_state s = { .seed = 1.7 };
	struct coro *coro = coro_new(pool, fp_fn, &s);
	volatile double x = 3.0, y = 0.1;

	for (int i = 0; i < 5; i++) {
		/* Clobber floating-point registers between switches. */
		double z = x * y + (double)i;

		CHECK_EQ_INT(coro_resume(coro), 1);
		x = z / 1.1;
	}
	CHECK_EQ_INT(coro_resume(coro), 2);
	CHECK(s.result == fp_reference(s.seed));
	CHECK_EQ_INT(fegetround(), FE_TONEAREST);
	fesetround(FE_DOWNWARD);
	CHECK_EQ_INT(coro_resume(coro), CORO_FINISHED);
	CHECK_EQ_INT(fegetround(), FE_DOWNWARD);
	fesetround(FE_TONEAREST);
	CHECK_EQ_INT(s.round_inside, FE_UPWARD);
	coro_release(coro);
	coro_pool_free(pool);
}
