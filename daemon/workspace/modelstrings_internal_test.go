package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
)

// TestModelKeepsNoSavedManifest: a model loaded from the saved decodings
// of its manifests holds its own copies of what it keeps from them (names,
// versions, scripts, dependencies): a string cut from the saved file kept
// the whole file alive with the model (1.7 MB at 10,000 projects). Its
// scripts answer as the package.json has them.
func TestModelKeepsNoSavedManifest(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"vx.workspace.json": `{"projects": ["p/*"]}`,
		"package.json":      `{"name": "the-root", "scripts": {"lint": "eslint ."}}`,
	}
	for i := range 20 {
		deps := ""
		if i > 0 {
			deps = fmt.Sprintf(`, "dependencies": {"q%02d": "*"}`, i-1)
		}
		files[fmt.Sprintf("p/q%02d/package.json", i)] = fmt.Sprintf(`{"name": "q%02d", "version": "1.0.%d", "scripts": {"build": "tsc -b", "test": "vitest"}%s}`, i, i, deps)
	}
	testtree.Write(t, root, files)
	if err := os.MkdirAll(layout.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	// The saved decodings, written as a load would (one now refuses
	// manifests written within racyWindow).
	s := &manifestStore{path: layout.Manifests(root), keep: map[string]string{}, changed: true}
	for name := range files {
		if filepath.Base(name) != "package.json" {
			continue
		}
		path := filepath.Join(root, name)
		st, err := stampOf(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := readPackageJSONAt(path, &st)
		if err != nil {
			t.Fatal(err)
		}
		w := &recordWriter{}
		w.stamp(st)
		w.packageJSON(p)
		s.keep[path] = w.B.String()
	}
	s.save()
	ms := openManifests(root)
	if len(ms.saved) != 21 {
		t.Fatalf("%d saved decodings read, want 21", len(ms.saved))
	}
	lo, hi := ^uintptr(0), uintptr(0) // the saved file's string
	for path, rec := range ms.saved {
		for _, s := range []string{path, rec} {
			p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
			lo, hi = min(lo, p), max(hi, p+uintptr(len(s)))
		}
	}
	m, err := load(root, ms, inferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inSaved := func(what, s string) {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); s != "" && p >= lo && p < hi {
			t.Errorf("%s %q is cut from the saved manifests", what, s)
		}
	}
	inSaved("the root's name", m.RootName)
	for _, sc := range m.RootScripts {
		inSaved("a root script", sc.Name)
		inSaved("a root script", sc.Command)
	}
	for _, p := range m.Projects {
		inSaved("a project's name", p.Name)
		inSaved("a project's version", p.Version)
		for _, sc := range p.Scripts {
			inSaved("a script's name", sc.Name)
			inSaved("a script", sc.Command)
		}
		for _, d := range p.Deps {
			inSaved("a dependency", d)
		}
	}
	if cmd, ok := m.byName["q03"].Scripts.Get("test"); !ok || cmd != "vitest" {
		t.Errorf("q03's test script: %q, %v", cmd, ok)
	}
	if _, ok := m.byName["q03"].Scripts.Get("tes"); ok {
		t.Errorf("q03 has a script it does not define")
	}
	if def, ok := m.Resolve("q05", "build"); !ok || def.Command != "tsc -b" || def.CommandSource != "package.json" {
		t.Errorf("q05#build resolves to %q from %q (%v)", def.Command, def.CommandSource, ok)
	}
	if got := m.byName["q05"].Deps; len(got) != 1 || got[0] != "q04" {
		t.Errorf("q05 depends on %q", got)
	}
}
