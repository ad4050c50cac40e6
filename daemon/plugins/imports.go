package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A plugin's identity covers the modules its entry imports (see
// importedModules), within these bounds.
const (
	maxModules     = 256
	maxModuleBytes = 8 << 20
)

// codeExts are the modules whose imports are followed; a module of
// another extension (a .json) is part of the identity but imports
// nothing.
var codeExts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".jsx": true, ".ts": true, ".mts": true, ".cts": true, ".tsx": true}

// tryExts are the extensions a specifier without one may stand for
// (require, TypeScript), in the order they are tried.
var tryExts = []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".json"}

// tsTwins maps a JavaScript extension to the TypeScript one a .ts
// module's import of "./x.js" finds on disk.
var tsTwins = map[string]string{".js": ".ts", ".mjs": ".mts", ".cjs": ".cts", ".jsx": ".tsx"}

// importSpec finds a module specifier written as a string literal after
// from (import … from, export … from), import (a bare import, import())
// or require(. It does not tell code from comments or strings: a
// commented-out import of a file that exists makes an edit of that
// file ask the plugin again, no more.
var importSpec = regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*(?:\(\s*)?|\brequire\s*\(\s*)(?:"([^"\n]{1,1000})"|'([^'\n]{1,1000})')`)

// module is one file of a plugin's identity besides its entry.
type module struct {
	Path string // absolute, links resolved where it exists
	// Missing: an import leads to no file; its creation is a change.
	Missing bool
	Body    []byte
}

// importedModules lists the modules the plugin whose entry is at entry
// (absolute, links resolved) imports, directly or through each other, by
// a relative specifier (./ or ../) written as a string literal, in the
// order found: the code the plugin runs besides its entry. A file the
// plugin reads or writes without importing it (a cache or a log beside
// it) is none, nor a package it imports (a package has its version), nor
// a module outside within (the workspace, or a package's directory).
// Past maxModules modules or maxModuleBytes of them it fails, with
// those it found.
func importedModules(entry, within string) ([]module, error) {
	realWithin, err := filepath.EvalSymlinks(within)
	if err != nil {
		realWithin = within
	}
	body, err := readBounded(entry, maxModuleBytes)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{entry: true}
	var out []module
	size := 0
	for i, from := -1, entry; i < len(out); i++ {
		if i >= 0 {
			if from, body = out[i].Path, out[i].Body; out[i].Missing || !codeExts[filepath.Ext(from)] {
				continue
			}
		}
		for _, spec := range specifiers(body) {
			m := resolveImport(filepath.Dir(from), spec)
			if seen[m.Path] || !inside(realWithin, m.Path) && !inside(within, m.Path) {
				continue
			}
			seen[m.Path] = true
			if !m.Missing {
				if m.Body, err = readBounded(m.Path, int64(maxModuleBytes-size)); err != nil {
					return out, fmt.Errorf("it imports %s, which cannot be read or is past %d MB of modules: %v", m.Path, maxModuleBytes>>20, err)
				}
				size += len(m.Body)
			}
			if out = append(out, m); len(out) > maxModules {
				return out, fmt.Errorf("it imports more than %d modules, all part of its identity", maxModules)
			}
		}
	}
	return out, nil
}

// specifiers lists the relative module specifiers in a module's text,
// without a query or fragment.
func specifiers(body []byte) []string {
	var out []string
	for _, m := range importSpec.FindAllSubmatch(body, -1) {
		s := string(m[1]) + string(m[2])
		if !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
			continue
		}
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		out = append(out, s)
	}
	return out
}

// resolveImport finds the file spec (relative) names from dir, as Node
// and TypeScript do for a relative path: the file itself, its .ts twin,
// the path with an extension added, or its directory's index. None
// found, it is the path itself, missing.
func resolveImport(dir, spec string) module {
	p := filepath.Join(dir, filepath.FromSlash(spec))
	cands := []string{p}
	if twin, ok := tsTwins[filepath.Ext(p)]; ok {
		cands = append(cands, strings.TrimSuffix(p, filepath.Ext(p))+twin)
	}
	for _, ext := range tryExts {
		cands = append(cands, p+ext)
	}
	for _, ext := range tryExts {
		cands = append(cands, filepath.Join(p, "index"+ext))
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			if real, err := filepath.EvalSymlinks(c); err == nil {
				return module{Path: real}
			}
			return module{Path: c}
		}
	}
	return module{Path: p, Missing: true}
}
