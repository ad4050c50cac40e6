package cache

import "io/fs"

// kept is what of permission bits m a file on this OS keeps: Windows
// keeps one, the read-only attribute, which Go shows as the write bits
// gone (0444) or there (0666); it keeps no execute or group bits.
func kept(m fs.FileMode) fs.FileMode {
	if m&0o200 == 0 {
		return 0o444
	}
	return 0o666
}

// dirWriteBit is false: a directory's read-only attribute does not stop
// files being made in it on Windows.
const dirWriteBit = false
