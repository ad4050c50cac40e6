//go:build !unix

package privfile

import "os"

const noFollow = 0

func links(os.FileInfo) uint64 { return 1 }

func owner(os.FileInfo) (int, bool) { return 0, false }
