//go:build !unix

package connlimit

// FileLimit is unknown here: 0.
func FileLimit() int { return 0 }
