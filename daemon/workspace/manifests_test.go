package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/layout"
)

// TestManifestStoreRoundTrip: a saved decoding reads back as it was
// (nil and empty maps apart, the raw workspaces field byte for byte), only
// for the stamp it was saved with; a recent stamp is never saved.
func TestManifestStoreRoundTrip(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(layout.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).UnixNano()
	st := fileStamp{size: 120, mtime: old, ino: 42, ctime: old}
	pkgs := map[string]*packageJSON{
		"/w/a/package.json": {Name: "a", Version: "1.0.0", Scripts: map[string]string{"build": "tsc && echo \"done\""},
			Workspaces: []byte(` ["packages/*"] `), Dependencies: map[string]string{"b": "workspace:*"}, DevDependencies: map[string]string{}},
		"/w/b/package.json": {Name: "b"},
	}
	s := openManifests(root)
	for path, p := range pkgs {
		s.put(path, st, p)
	}
	s.put("/w/new/package.json", fileStamp{size: 1, mtime: time.Now().UnixNano(), ctime: old}, &packageJSON{Name: "new"})
	s.save()

	s = openManifests(root)
	for path, want := range pkgs {
		got, ok := s.get(path, st)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v (%v), want %#v", path, got, ok, want)
		}
		moved := st
		moved.ctime++
		if _, ok := s.get(path, moved); ok {
			t.Errorf("%s: answered for another ctime", path)
		}
	}
	if _, ok := s.get("/w/new/package.json", fileStamp{size: 1}); ok || len(s.saved) != len(pkgs) {
		t.Errorf("a manifest written within the racy window was saved (%d entries)", len(s.saved))
	}

	// Entries the next load does not use drop out when it saves.
	s = openManifests(root)
	s.get("/w/a/package.json", st)
	s.save()
	if s = openManifests(root); len(s.saved) != 1 {
		t.Errorf("after a load that used one manifest, %d are saved", len(s.saved))
	}

	// A torn file answers nothing and is rewritten.
	raw, err := os.ReadFile(layout.Manifests(root))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(layout.Manifests(root), raw[:len(raw)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	s = openManifests(root)
	if _, ok := s.get("/w/a/package.json", st); ok || !s.changed {
		t.Errorf("a torn file was trusted (changed=%v)", s.changed)
	}

	// No .vx/: nothing is read or saved.
	bare := t.TempDir()
	if s := openManifests(bare); s != nil {
		t.Errorf("a workspace without %s has a manifest store", layout.DirName)
	}
	if _, err := os.Stat(filepath.Join(bare, layout.DirName)); err == nil {
		t.Errorf("openManifests created %s", layout.DirName)
	}
}
