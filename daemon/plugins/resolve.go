package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/vzn/vx/protocol/plugin"
)

// Decl is one entry of "plugins" in vx.workspace.json.
type Decl struct {
	// Spec is the entry as written: a workspace-relative path or an npm
	// package name.
	Spec    string
	Options json.RawMessage
	Timeout time.Duration // 0: plugin.DefaultTimeoutSeconds
	// Scope limits the matched files and the projects a tasks request
	// carries (empty: none).
	Scope Scope
	// File is the file the declaration is in, as shown in errors.
	File string
}

func (d Decl) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return plugin.DefaultTimeoutSeconds * time.Second
}

// isPath reports whether spec names a file rather than a package.
func isPath(spec string) bool {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || strings.HasPrefix(spec, "/") || filepath.IsAbs(spec) {
		return true
	}
	for _, ext := range []string{".js", ".mjs", ".cjs"} {
		if strings.HasSuffix(spec, ext) {
			return true
		}
	}
	return false
}

// packageName is an npm package name, scoped or not.
var packageName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// CheckSpec refuses a spec that is neither a relative path nor a package
// name.
func CheckSpec(spec string) error {
	if spec == "" {
		return fmt.Errorf("a plugin is an empty string (use a path such as \"./tools/plugin.mjs\" or a package name)")
	}
	if isPath(spec) {
		if filepath.IsAbs(spec) || strings.HasPrefix(spec, "/") {
			return fmt.Errorf("plugin %q: an absolute path (use a path relative to the workspace root)", spec)
		}
		return nil
	}
	if !packageName.MatchString(spec) || len(spec) > 214 {
		return fmt.Errorf("plugin %q is neither a path (start it with ./) nor an npm package name", spec)
	}
	return nil
}

// Entry is a resolved plugin: the file to run and its identity.
type Entry struct {
	Path string // absolute
	// Package is the package.json that named the entry ("" for a path).
	Package string
	// Identity is the content hash of the entry, the modules it imports
	// (importedModules) and, for a package, its package.json.
	Identity string
}

// resolve finds d's entry under root, refusing one outside the workspace
// (or, for a package, outside its package's directory).
func resolve(root string, d Decl) (Entry, error) {
	refuse := func(reason string) (Entry, error) {
		return Entry{}, &pluginError{Plugin: d.Spec, File: d.File, Reason: reason}
	}
	if err := CheckSpec(d.Spec); err != nil {
		return refuse(err.Error())
	}
	h := sha256.New()
	var e Entry
	within := root
	if isPath(d.Spec) {
		e.Path = filepath.Join(root, filepath.FromSlash(d.Spec))
	} else {
		dir := filepath.Join(root, "node_modules", filepath.FromSlash(d.Spec))
		e.Package = filepath.Join(dir, "package.json")
		rel, err := packageEntry(e.Package, h)
		if err != nil {
			return refuse(err.Error())
		}
		e.Path, within = filepath.Join(dir, filepath.FromSlash(rel)), dir
	}
	if !inside(within, e.Path) {
		return refuse(fmt.Sprintf("its entry %s is outside %s", d.Spec, within))
	}
	real, err := filepath.EvalSymlinks(e.Path)
	if err != nil {
		return refuse(fmt.Sprintf("its entry cannot be read: %v", err))
	}
	if realWithin, err := filepath.EvalSymlinks(within); err != nil || !inside(realWithin, real) {
		return refuse(fmt.Sprintf("its entry %s leads outside %s", d.Spec, within))
	}
	if err := hashFile(real, h); err != nil {
		return refuse(fmt.Sprintf("its entry cannot be read: %v", err))
	}
	if err := hashImports(real, within, h); err != nil {
		return refuse(err.Error())
	}
	e.Identity = hex.EncodeToString(h.Sum(nil))
	return e, nil
}

// hashImports hashes into h, by path relative to entry's directory and
// by content, the modules entry imports (importedModules), so that
// editing one asks the plugin again; a missing one by its path alone.
func hashImports(entry, within string, h io.Writer) error {
	mods, err := importedModules(entry, within)
	if err != nil {
		return err
	}
	for _, m := range mods {
		rel, _ := filepath.Rel(filepath.Dir(entry), m.Path)
		if m.Missing {
			fmt.Fprintf(h, "\x00%s\x00missing\x00", filepath.ToSlash(rel))
			continue
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00", filepath.ToSlash(rel), len(m.Body))
		h.Write(m.Body)
	}
	return nil
}

// packageEntry reads the "vx": {"plugin": …} of a package.json, hashing
// the file into h.
func packageEntry(path string, h io.Writer) (string, error) {
	b, err := readBounded(path, 1<<20)
	if err != nil {
		return "", fmt.Errorf("the package is not installed (%v): install it, e.g. npm install --save-dev", err)
	}
	h.Write(b)
	var pkg struct {
		VX *struct {
			Plugin string `json:"plugin"`
		} `json:"vx"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("%s is not JSON: %v", path, err)
	}
	if pkg.VX == nil || pkg.VX.Plugin == "" {
		return "", fmt.Errorf("%s has no \"vx\": {\"plugin\": \"<entry>\"}: the package is not a vx plugin", path)
	}
	return pkg.VX.Plugin, nil
}

func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the file's stat, a stored answer of hundreds of KB is
	// read into one buffer rather than one grown a dozen times.
	var b []byte
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < max {
		b = make([]byte, 0, st.Size()+1)
	}
	b, err = readAllInto(b, io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, err
}

// readAllInto is io.ReadAll appending to b.
func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// hashFile writes path's content to h, refusing what is not a regular
// file (see openRegular).
func hashFile(path string, h io.Writer) error {
	f, _, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}

// openRegular opens the regular file at path. It is looked at before it
// is opened: opening a FIFO (or a link to one) would wait for a writer.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() { // replaced between the two looks
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// inside reports whether path is dir or below it, lexically.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
