//go:build !unix && !windows

package privfile

import "os"

const noFollow = 0

func links(os.FileInfo) uint64 { return 1 }

// Owner is unknown here: false.
func Owner(os.FileInfo) (int, bool) { return 0, false }

// userOnly has nothing to add here.
func userOnly(string) error { return nil }
