//go:build !windows

package hashing_test

import "io/fs"

// kept is what of permission bits m a file on this OS keeps: all.
func kept(m fs.FileMode) fs.FileMode { return m }
