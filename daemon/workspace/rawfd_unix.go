//go:build unix

package workspace

// rawFD is what syscall.Open answers: a descriptor.
type rawFD = int
