package layout

import "path/filepath"

// Manifests is the saved decoding of the workspace's package.json files
// (daemon/workspace.LoadReusing).
func Manifests(root string) string { return filepath.Join(root, DirName, "manifests") }
