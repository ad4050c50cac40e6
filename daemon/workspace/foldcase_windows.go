package workspace

// FoldsCase says this OS's file systems take names that differ only in
// case as one (NTFS as Windows opens it).
const FoldsCase = true
