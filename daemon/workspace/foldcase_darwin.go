package workspace

// FoldsCase says this OS's file systems take names that differ only in
// case as one (APFS and HFS+ as macOS formats them by default).
const FoldsCase = true
