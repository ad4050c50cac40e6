package layout

import "path/filepath"

// FileList is the saved workspace listing (daemon/hashing.ListFilesCached).
func FileList(root string) string { return filepath.Join(root, DirName, "listing") }
