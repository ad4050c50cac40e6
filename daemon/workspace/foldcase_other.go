//go:build !windows && !darwin

package workspace

// FoldsCase says this OS's file systems take names that differ only in
// case as one: not here (ext4, xfs, btrfs tell them apart).
const FoldsCase = false
