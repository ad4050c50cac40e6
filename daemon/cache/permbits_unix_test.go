//go:build !windows

package cache

import "io/fs"

// kept is what of permission bits m a file on this OS keeps: all.
func kept(m fs.FileMode) fs.FileMode { return m }

// dirWriteBit is true: a directory without its write bit refuses new
// files (to all but root).
const dirWriteBit = true
