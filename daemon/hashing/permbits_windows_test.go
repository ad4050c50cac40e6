package hashing_test

import "io/fs"

// kept is what of permission bits m a file on this OS keeps: Windows
// keeps the read-only attribute only (Go shows 0444 or 0666).
func kept(m fs.FileMode) fs.FileMode {
	if m&0o200 == 0 {
		return 0o444
	}
	return 0o666
}
