//go:build !linux

package server

// portHolder names the process listening on port; "" where the system
// offers no cheap way to tell.
func portHolder(port int) string { return "" }
