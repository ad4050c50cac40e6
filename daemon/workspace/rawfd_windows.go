package workspace

import "syscall"

// rawFD is what syscall.Open answers: a handle.
type rawFD = syscall.Handle
