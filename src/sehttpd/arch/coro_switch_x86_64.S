/* SPDX-License-Identifier: MIT */
/*
 * The x86_64 (System V) context switch; struct coro_ctx in coro.c mirrors
 * the offsets below.  The MXCSR and x87 control words are callee-saved in
 * this ABI, so a coroutine that changes the rounding mode keeps it to itself.
 */
#define CTX_RSP 0
#define CTX_RIP 8
#define CTX_RBX 16
#define CTX_RBP 24
#define CTX_R12 32
#define CTX_R13 40
#define CTX_R14 48
#define CTX_R15 56
#define CTX_MXCSR 64
#define CTX_FPUCW 68

	.text

/* void coro_switch(struct coro_ctx *from, const struct coro_ctx *to) */
	.globl	coro_switch
	.hidden	coro_switch
	.type	coro_switch, @function
	.p2align 4
coro_switch:
	.cfi_startproc
	movq	(%rsp), %rax		/* where from resumes */
	leaq	8(%rsp), %rcx		/* its stack pointer after the return */
	movq	%rcx, CTX_RSP(%rdi)
	movq	%rax, CTX_RIP(%rdi)
	movq	%rbx, CTX_RBX(%rdi)
	movq	%rbp, CTX_RBP(%rdi)
	movq	%r12, CTX_R12(%rdi)
	movq	%r13, CTX_R13(%rdi)
	movq	%r14, CTX_R14(%rdi)
	movq	%r15, CTX_R15(%rdi)
	stmxcsr	CTX_MXCSR(%rdi)
	fnstcw	CTX_FPUCW(%rdi)

	movq	CTX_RBX(%rsi), %rbx
	movq	CTX_RBP(%rsi), %rbp
	movq	CTX_R12(%rsi), %r12
	movq	CTX_R13(%rsi), %r13
	movq	CTX_R14(%rsi), %r14
	movq	CTX_R15(%rsi), %r15
	ldmxcsr	CTX_MXCSR(%rsi)
	fldcw	CTX_FPUCW(%rsi)
	movq	CTX_RSP(%rsi), %rsp
	jmpq	*CTX_RIP(%rsi)
	.cfi_endproc
	.size	coro_switch, . - coro_switch

/*
 * A new coroutine's first instruction, on its empty stack (16-byte aligned),
 * with rbx = entry, r12 = its argument, r13 = the coroutine's own context and
 * r14 = its resumer's.  Once entry returns, switches back for good.
 */
	.globl	coro_trampoline
	.hidden	coro_trampoline
	.type	coro_trampoline, @function
	.p2align 4
coro_trampoline:
	.cfi_startproc
	.cfi_undefined rip		/* the outermost frame: stop unwinding */
	movq	%r12, %rdi
	callq	*%rbx
	movq	%r13, %rdi
	movq	%r14, %rsi
	callq	coro_switch
	ud2				/* a finished coroutine is never resumed */
	.cfi_endproc
	.size	coro_trampoline, . - coro_trampoline

	.section .note.GNU-stack, "", @progbits
