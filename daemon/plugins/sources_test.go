package plugins

import (
	"path/filepath"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// TestIdentitySourcesCountWhatTheIdentityHashes: a change counts as an
// edit of a path plugin when it is of the entry or of a module beside it
// (as hashModules hashes them), not of another file there, nor of a
// module in node_modules or a hidden directory below it; a plugin at the
// workspace root has its entry alone.
func TestIdentitySourcesCountWhatTheIdentityHashes(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{
		"tools/p/plugin.mjs":            "",
		"tools/p/lib/util.mjs":          "",
		"tools/p/README.md":             "",
		"tools/p/node_modules/dep/x.js": "",
		"tools/p/.cache/y.js":           "",
		"root-plugin.mjs":               "",
		"other.mjs":                     "",
	})
	at := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	s := IdentitySources(root, "./tools/p/plugin.mjs")
	for rel, want := range map[string]bool{
		"tools/p/plugin.mjs": true, "tools/p/lib/util.mjs": true, "tools/p/new.json": true, "tools/p/lib": true,
		"tools/p/README.md": false, "tools/p/node_modules/dep/x.js": false, "tools/p/.cache/y.js": false, "other.mjs": false,
	} {
		if got := s.Counts(at(rel)); got != want {
			t.Errorf("path plugin: a change of %s counts %v, want %v", rel, got, want)
		}
	}
	if !s.watches(at("tools/p")) || !s.watches(at("tools/p/lib")) || s.watches(at("tools/p/node_modules")) {
		t.Errorf("path plugin watches %v", s.Dirs)
	}
	r := IdentitySources(root, "./root-plugin.mjs")
	if !r.Counts(at("root-plugin.mjs")) || r.Counts(at("other.mjs")) {
		t.Errorf("a plugin at the root counts other modules there: %+v", r)
	}
}
