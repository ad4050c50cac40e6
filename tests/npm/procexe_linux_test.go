//go:build !windows

package npm_test

import (
	"os"
	"strconv"
)

// processExe is the executable pid runs, or ok false where it cannot be
// known.
func processExe(pid int) (exe string, ok bool, err error) {
	exe, err = os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return exe, true, err
}
