//go:build !unix && !windows

package privfile

import (
	"fmt"
	"os"
)

const noFollow = 0

func links(os.FileInfo) uint64 { return 1 }

// Owner is unknown here: false.
func Owner(os.FileInfo) (int, bool) { return 0, false }

// userOnly has nothing to add here.
func userOnly(string) error { return nil }

// OpenToOthers says how path (fi its Lstat) is open to other users ("" when
// it is not): by a mode bit of deny.
func OpenToOthers(path string, fi os.FileInfo, deny os.FileMode) string {
	if fi.Mode().Perm()&deny == 0 {
		return ""
	}
	return fmt.Sprintf("%s is open to other users (mode %v)", path, fi.Mode())
}
