package cache

import "os"

// EntrySize is the size in bytes of the entry stored under key, and
// whether the cache holds one.
func (s *Store) EntrySize(key string) (int64, bool) {
	if checkKey(key) != nil {
		return 0, false
	}
	fi, err := os.Stat(s.entryPath(key))
	if err != nil {
		return 0, false
	}
	return fi.Size(), true
}
