package layout

import "path/filepath"

// Notices is what this workspace's runs have already told the user once
// (a warning of overlapping outputs, .vx/ not ignored by git), so that a
// later run does not repeat it, ROOT/.vx/notices.json.
func Notices(root string) string { return filepath.Join(root, DirName, "notices.json") }
