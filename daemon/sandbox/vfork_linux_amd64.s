#include "textflag.h"

// func vfork3(args, size uintptr) (pid, errno uintptr)
//
// clone3 for a child that shares the caller's memory and runs first
// (CLONE_VM|CLONE_VFORK in args). The child returns through this same
// frame, so the return address must not stay on the stack, where the
// child's later calls would overwrite it before the parent resumes: it
// is kept in R12, which the kernel preserves for both, and pushed back
// after the call.
TEXT ·vfork3(SB),NOSPLIT|NOFRAME,$0-32
	MOVQ	args+0(FP), DI
	MOVQ	size+8(FP), SI
	MOVQ	$435, AX // SYS_clone3
	POPQ	R12
	SYSCALL
	PUSHQ	R12
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, pid+16(FP)
	NEGQ	AX
	MOVQ	AX, errno+24(FP)
	RET
ok:
	MOVQ	AX, pid+16(FP)
	MOVQ	$0, errno+24(FP)
	RET
