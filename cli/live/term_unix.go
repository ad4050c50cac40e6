//go:build unix

package live

import (
	"os"

	"golang.org/x/sys/unix"
)

// Size is the terminal's columns and rows; ok is false when f is no
// terminal.
func Size(f *os.File) (cols, rows int, ok bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, false
	}
	return int(ws.Col), int(ws.Row), true
}
