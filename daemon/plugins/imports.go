package plugins

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// importKeywords precede a module specifier: from (import … from,
// export … from), import (a bare import, import()) and require(; paren
// says whether a ( comes between, may (import) or must (require).
var importKeywords = []struct {
	word  string
	paren int // 0 none, 1 may, 2 must
}{{"from", 0}, {"import", 1}, {"require", 2}}

// maxSpecifier bounds a specifier's length.
const maxSpecifier = 1024

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
	// An entry past maxModuleBytes (a bundle) is scanned that far: its
	// imports are at its top, and it is hashed whole besides.
	body, err := readModule(entry, maxModuleBytes, true)
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
				if m.Body, err = readModule(m.Path, maxModuleBytes-size, false); err != nil {
					return out, fmt.Errorf("it imports %s, which cannot be read or is past the %d MB its modules may have (bundle it, or import the rest as a package): %v", m.Path, maxModuleBytes>>20, err)
				}
				size += len(m.Body)
			}
			if out = append(out, m); len(out) > maxModules {
				return out, fmt.Errorf("it imports more than %d modules by relative paths, all part of its identity: bundle it into fewer files, or import the rest as a package (a package's version stands for its files)", maxModules)
			}
		}
	}
	return out, nil
}

// specifiers lists the relative module specifiers in a module's text,
// without a query or fragment: each string literal after one of
// importKeywords written as a word (not a property: Array.from("./x")
// is none). Comments and strings are not told from code: a
// commented-out import of a file that exists makes an edit of that
// file ask the plugin again, no more.
func specifiers(body []byte) []string {
	var out []string
	for _, kw := range importKeywords {
		for i := 0; ; {
			j := bytes.Index(body[i:], []byte(kw.word))
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(kw.word)
			if at > 0 && (isWordByte(body[at-1]) || body[at-1] == '.') {
				continue
			}
			if s, ok := literalAfter(body[i:], kw.paren); ok && (strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")) {
				if k := strings.IndexAny(s, "?#"); k >= 0 {
					s = s[:k]
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// literalAfter reads the string literal that b starts with, after
// blanks and, as paren says, a (.
func literalAfter(b []byte, paren int) (string, bool) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if paren > 0 && len(b) > 0 && b[0] == '(' {
		b = bytes.TrimLeft(b[1:], " \t\r\n")
	} else if paren == 2 {
		return "", false
	}
	if len(b) == 0 || b[0] != '"' && b[0] != '\'' {
		return "", false
	}
	end := bytes.IndexAny(b[1:min(len(b), maxSpecifier+2)], string(b[0])+"\n")
	if end <= 0 || b[1+end] != b[0] {
		return "", false
	}
	return string(b[1 : 1+end]), true
}

// isWordByte says whether c may be part of an identifier.
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
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

// readModule reads the regular file at path (see openRegular), up to
// max bytes: past them it fails, or (cut) returns those.
func readModule(path string, max int, cut bool) ([]byte, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readAllInto(make([]byte, 0, min(st.Size(), int64(max))+1), io.LimitReader(f, int64(max)+1))
	switch {
	case err != nil:
		return nil, err
	case len(b) > max && cut:
		return b[:max], nil
	case len(b) > max:
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}
