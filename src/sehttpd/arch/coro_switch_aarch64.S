/* SPDX-License-Identifier: MIT */
/*
 * The AArch64 (AAPCS64) context switch; struct coro_ctx in coro.c mirrors
 * the offsets below.  FPCR (rounding mode and the like) is preserved across
 * calls in this ABI, so it is switched too, but written only when it differs:
 * writing it can stall the pipeline.
 */
#define CTX_X19 0
#define CTX_X21 16
#define CTX_X23 32
#define CTX_X25 48
#define CTX_X27 64
#define CTX_X29 80
#define CTX_SP 96
#define CTX_D8 104
#define CTX_D10 120
#define CTX_D12 136
#define CTX_D14 152
#define CTX_FPCR 168

	.text

/* void coro_switch(struct coro_ctx *from, const struct coro_ctx *to) */
	.globl	coro_switch
	.hidden	coro_switch
	.type	coro_switch, %function
	.p2align 4
coro_switch:
	.cfi_startproc
	stp	x19, x20, [x0, #CTX_X19]
	stp	x21, x22, [x0, #CTX_X21]
	stp	x23, x24, [x0, #CTX_X23]
	stp	x25, x26, [x0, #CTX_X25]
	stp	x27, x28, [x0, #CTX_X27]
	stp	x29, x30, [x0, #CTX_X29]	/* x30: where from resumes */
	mov	x9, sp
	str	x9, [x0, #CTX_SP]
	stp	d8, d9, [x0, #CTX_D8]
	stp	d10, d11, [x0, #CTX_D10]
	stp	d12, d13, [x0, #CTX_D12]
	stp	d14, d15, [x0, #CTX_D14]
	mrs	x10, fpcr
	str	x10, [x0, #CTX_FPCR]

	ldp	x19, x20, [x1, #CTX_X19]
	ldp	x21, x22, [x1, #CTX_X21]
	ldp	x23, x24, [x1, #CTX_X23]
	ldp	x25, x26, [x1, #CTX_X25]
	ldp	x27, x28, [x1, #CTX_X27]
	ldp	x29, x30, [x1, #CTX_X29]
	ldr	x9, [x1, #CTX_SP]
	mov	sp, x9
	ldp	d8, d9, [x1, #CTX_D8]
	ldp	d10, d11, [x1, #CTX_D10]
	ldp	d12, d13, [x1, #CTX_D12]
	ldp	d14, d15, [x1, #CTX_D14]
	ldr	x11, [x1, #CTX_FPCR]
	cmp	x10, x11
	b.eq	1f
	msr	fpcr, x11
1:	ret
	.cfi_endproc
	.size	coro_switch, . - coro_switch

/*
 * A new coroutine's first instruction, on its empty stack (16-byte aligned),
 * with x19 = entry, x20 = its argument, x21 = the coroutine's own context and
 * x22 = its resumer's.  Once entry returns, switches back for good.
 */
	.globl	coro_trampoline
	.hidden	coro_trampoline
	.type	coro_trampoline, %function
	.p2align 4
coro_trampoline:
	.cfi_startproc
	.cfi_undefined x30		/* the outermost frame: stop unwinding */
	mov	x0, x20
	blr	x19
	mov	x0, x21
	mov	x1, x22
	bl	coro_switch
	brk	#0x1			/* a finished coroutine is never resumed */
	.cfi_endproc
	.size	coro_trampoline, . - coro_trampoline

	.section .note.GNU-stack, "", %progbits
