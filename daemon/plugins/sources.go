package plugins

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sources is what a declared plugin's identity (Entry.Identity) is made
// of, as a file watch needs it: the directories to watch, and which
// changes in them are changes of the plugin. vxd reloads on those, as
// each vx command, which resolves the plugin again, sees them at once.
type Sources struct {
	// Dirs are the directories that hold the sources, each once.
	Dirs  []string
	files map[string]bool
	// modules is a path plugin's entry's directory, whose modules (and
	// its subdirectories', outside node_modules and hidden ones) count
	// ("" when the entry is at the workspace root: none does).
	modules string
}

// IdentitySources lists the sources of the plugin declared as spec in
// the workspace at root, in the workspace only (where root, or what it
// resolves to, holds them). For a path, the entry (and the file it links
// to) and the modules beside it. For a package, its directory under
// node_modules (a link, with pnpm: a new version is a new link), its
// package.json and its entry, both where the link leads too; the
// package's other files are not part of its identity, and are left out.
// A plugin that does not resolve has the sources it would have: fixing
// it is a change of one of them.
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
		if within(root, realRoot, dir) {
			s.addDir(dir)
		}
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
	if isPath(spec) {
		entry := filepath.Join(root, filepath.FromSlash(spec))
		real := addReal(entry)
		if dir := filepath.Dir(real); dir != realRoot && dir != root {
			s.addModuleDirs(root, realRoot, dir)
		}
		return s
	}
	dir := filepath.Join(root, "node_modules", filepath.FromSlash(spec))
	add(dir)
	add(filepath.Join(dir, "package.json"))
	if rel, err := packageEntry(filepath.Join(dir, "package.json"), io.Discard); err == nil {
		addReal(filepath.Join(dir, filepath.FromSlash(rel)))
	}
	return s
}

// within says whether p is in the workspace at root (or at realRoot,
// where root resolves to).
func within(root, realRoot, p string) bool {
	return inside(root, p) || inside(realRoot, p)
}

func (s *Sources) addDir(dir string) {
	for _, d := range s.Dirs {
		if d == dir {
			return
		}
	}
	s.Dirs = append(s.Dirs, dir)
}

// addModuleDirs records dir, a path plugin's entry's directory, and the
// directories below it that hashModules walks, up to maxModules of them.
func (s *Sources) addModuleDirs(root, realRoot, dir string) {
	if !within(root, realRoot, dir) {
		return
	}
	s.modules = dir
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || !d.IsDir():
			return nil
		case p != dir && notModuleDir(d.Name()):
			return filepath.SkipDir
		case n >= maxModules:
			return filepath.SkipAll
		}
		n++
		s.addDir(p)
		return nil
	})
}

// Counts says whether a change of path (absolute, as a watch of one of
// Dirs names it) is a change of the plugin: one of its files, a module
// beside a path plugin's entry, or a directory there (which may hold
// modules, or have held some).
func (s Sources) Counts(path string) bool {
	if s.files[path] {
		return true
	}
	if s.modules == "" || !inside(s.modules, path) || path == s.modules {
		return false
	}
	rel, _ := filepath.Rel(s.modules, path)
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		if notModuleDir(seg) {
			return false
		}
	}
	if moduleExts[filepath.Ext(path)] {
		return true
	}
	st, err := os.Lstat(path)
	return err == nil && st.IsDir() || err != nil && s.watches(path)
}

// watches says whether dir is one of Dirs.
func (s Sources) watches(dir string) bool {
	for _, d := range s.Dirs {
		if d == dir {
			return true
		}
	}
	return false
}
