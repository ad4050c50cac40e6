package hashing

import (
	"path/filepath"
	"testing"
)

// JoinSlash makes the path Join would for a root that is not clean too
// (relative, empty, with "." or ".." elements, doubled or forward
// separators on Windows): concatenating a clean listed path to such a root
// would name another string for the same file, which the stat cache and
// the journal key by.
func TestJoinSlashJoinsAsJoinWouldForAnyRoot(t *testing.T) {
	roots := []string{"", ".", "w", "./w", "/w/./x", "/w/../v", "//w", "/w//x", "/w/", "/w/x/.", "/w/x/..",
		`C:\ws`, `C:\`, `C:/ws`, `C:\ws\`, `\\srv\share`, `\\srv\share\`, `C:\ws\.\x`, `C:`}
	rels := []string{"a.json", "p/q/vx-ref.json", ".a/b..", "a./b c"}
	for _, root := range roots {
		for _, rel := range rels {
			want := filepath.Join(root, filepath.FromSlash(rel))
			if got := JoinSlash(root, rel); got != want {
				t.Errorf("JoinSlash(%q, %q) = %q, want %q", root, rel, got, want)
			}
		}
	}
}
