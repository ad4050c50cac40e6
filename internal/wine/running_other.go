//go:build !windows

package wine

// Running reports whether this program runs under wine: never, on an OS
// other than Windows.
func Running() bool { return false }
