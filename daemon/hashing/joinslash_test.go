package hashing

import (
	"path/filepath"
	"testing"
)

// JoinSlash makes the path Join would, whatever the root and the
// workspace-relative path.
func TestJoinSlashJoinsAsJoinWould(t *testing.T) {
	roots := []string{"/w", "/", "/a/b", filepath.FromSlash("/x/y")}
	rels := []string{"a.json", "a/./b", "a/b/.", "a/b/..", ".a/b..", "a/.../b", "p/q/vx-ref.json", "./a", "a/../b", "a//b", "..", "../x", ".", "", "a/", "/abs", `a\..\b`, `c:\x`}
	for _, root := range roots {
		for _, rel := range rels {
			want := filepath.Join(root, filepath.FromSlash(rel))
			if got := JoinSlash(root, rel); got != want {
				t.Errorf("JoinSlash(%q, %q) = %q, want %q", root, rel, got, want)
			}
		}
	}
}
