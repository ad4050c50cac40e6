//go:build !windows

package cache

import "os"

// openEntry opens the cache entry at path for reading.
func openEntry(path string) (*os.File, error) { return os.Open(path) }

// renameEntry renames a finished entry into place over any entry of
// the same key: a rename replaces a file others have open.
func renameEntry(from, to string) error { return os.Rename(from, to) }
