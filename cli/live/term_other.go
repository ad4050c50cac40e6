//go:build !unix

package live

import "os"

// Size says no terminal: the live view draws only where it can read the
// terminal's size.
func Size(f *os.File) (cols, rows int, ok bool) { return 0, 0, false }
