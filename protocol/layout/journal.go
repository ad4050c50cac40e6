package layout

import "path/filepath"

// JournalState is what the last `vx run` proved about the workspace's
// files at a token of vxd's change journal (daemon/journal.Changes),
// ROOT/.vx/journal.
func JournalState(root string) string { return filepath.Join(root, DirName, "journal") }

// JournalBarriers is where vxd creates the marker files that flush its
// file watch before answering what changed, ROOT/.vx/daemon/journal.
func JournalBarriers(root string) string { return filepath.Join(Daemon(root), "journal") }

// Repeat is the last fully cached run a later identical run may repeat
// while vxd's change journal proves nothing it depends on changed
// (daemon/journal), ROOT/.vx/repeat.
func Repeat(root string) string { return filepath.Join(root, DirName, "repeat") }
