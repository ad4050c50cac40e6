package watch

import "github.com/fsnotify/fsnotify"

// watchBuffer is the ReadDirectoryChangesW buffer of each directory's
// watch: fsnotify's default, 64 KB, held 1,552 directories' watches in
// 97 MB of vxd's heap (measured under wine); 16 KB holds some 300 events of a
// directory between two reads, and more overflow it: the journal's epoch
// then ends (ErrEventOverflow), so runs stat every file until the next.
const watchBuffer = 16 << 10

// addWatch watches directory dir with a buffer of watchBuffer bytes.
func addWatch(w *fsnotify.Watcher, dir string) error {
	return w.AddWith(dir, fsnotify.WithBufferSize(watchBuffer))
}
