//go:build !unix

package connlimit

// OpenFileLimit is unknown here: false.
func OpenFileLimit() (uint64, bool) { return 0, false }
