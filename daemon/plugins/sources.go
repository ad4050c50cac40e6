package plugins

import (
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Sources is what a declared plugin's identity (Entry.Identity) is made
// of, as a file watch needs it: the directories to watch, and which
// changes in them are changes of the plugin. vxd reloads on those, as
// each vx command, which resolves the plugin again, sees them at once.
type Sources struct {
	// Dirs are the directories that hold the sources, each once.
	Dirs  []string
	files map[string]bool
}

// IdentitySources lists the sources of the plugin declared as spec in
// the workspace at root, in the workspace only (where root, or what it
// resolves to, holds them): its entry (and the file it links to) and
// the modules the entry imports (importedModules), found where it
// leads; for a package also its directory under node_modules (a link,
// with pnpm: a new version is a new link) and its package.json. A file
// the plugin writes beside its entry is none of them. A plugin that does
// not resolve has the sources it would have: fixing it is a change of
// one of them.
func IdentitySources(root, spec string) Sources {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	s := Sources{files: map[string]bool{}}
	// A file is named as reached through links, and as in its directory
	// where that is: the directory is watched there (one directory
	// watched under two names has its events named after either).
	add := func(p string) {
		if !within(root, realRoot, p) {
			return
		}
		s.files[p] = true
		dir := filepath.Dir(p)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
			s.files[filepath.Join(dir, filepath.Base(p))] = true
		}
		s.addDir(root, realRoot, dir)
	}
	addReal := func(p string) string {
		add(p)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return p
		}
		add(real)
		return real
	}
	entry, bound := filepath.Join(root, filepath.FromSlash(spec)), root
	if !isPath(spec) {
		bound = filepath.Join(root, "node_modules", filepath.FromSlash(spec))
		add(bound)
		add(filepath.Join(bound, "package.json"))
		rel, err := packageEntry(filepath.Join(bound, "package.json"), io.Discard)
		if err != nil {
			return s
		}
		entry = filepath.Join(bound, filepath.FromSlash(rel))
	}
	real := addReal(entry)
	mods, _ := importedModules(real, bound)
	for _, m := range mods {
		add(m.Path)
	}
	return s
}

// within says whether p is in the workspace at root (or at realRoot,
// where root resolves to).
func within(root, realRoot, p string) bool {
	return inside(root, p) || inside(realRoot, p)
}

// addDir records dir, or where it is missing the nearest directory above
// it in the workspace (whose change of dir counts), once.
func (s *Sources) addDir(root, realRoot, dir string) {
	for ; within(root, realRoot, dir); dir = filepath.Dir(dir) {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			break
		}
	}
	if !within(root, realRoot, dir) || slices.Contains(s.Dirs, dir) {
		return
	}
	s.Dirs = append(s.Dirs, dir)
}

// Counts says whether a change of path (absolute, as a watch of one of
// Dirs names it) is a change of the plugin: one of its files, or a
// directory holding one (moved, removed, or made where a missing module
// is expected).
func (s Sources) Counts(path string) bool {
	if s.files[path] {
		return true
	}
	for f := range s.files {
		if f != path && inside(path, f) {
			return true
		}
	}
	return false
}
