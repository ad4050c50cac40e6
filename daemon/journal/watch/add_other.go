//go:build !windows

package watch

import "github.com/fsnotify/fsnotify"

// addWatch watches directory dir (an inotify or kqueue watch: no buffer
// of its own).
func addWatch(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }
