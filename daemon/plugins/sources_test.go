package plugins

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// importingPlugin imports, in each way a plugin may, the modules a
// change of which is a change of the plugin, and reads (without
// importing) a cache file beside it, which is not one, nor is a string
// after a property named from.
const importingPlugin = `import { readFileSync, writeFileSync } from "node:fs";
import pkg from "some-package";
import { util } from './lib/util.mjs';
import data from "./data.json" with { type: "json" };
import "./missing/gone.mjs";
const cjs = require("./cjs");
const shared = await import("../shared/x.mjs?v=1");
const cache = readFileSync(new URL("./cache.json", import.meta.url), "utf8");
const notAnImport = Array.from("./other.mjs");
`

// pluginTree is a workspace with importingPlugin in tools/p, beside
// files it does not import.
func pluginTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{
		"tools/p/plugin.mjs":            importingPlugin,
		"tools/p/lib/util.mjs":          `export * from "./deep.js"; // deep.ts on disk, as TypeScript writes it`,
		"tools/p/lib/deep.ts":           "export const util = 1;\n",
		"tools/p/data.json":             "{}",
		"tools/p/cjs.js":                "module.exports = 1;\n",
		"tools/p/cache.json":            `{"at": 1}`,
		"tools/p/plugin.log":            "started\n",
		"tools/p/other.mjs":             "",
		"tools/p/README.md":             "",
		"tools/p/cache/answer.json":     "{}",
		"tools/p/node_modules/dep/x.js": "",
		"tools/shared/x.mjs":            `import "../p/lib/util.mjs";`,
		"root-plugin.mjs":               `import "./tools/shared/x.mjs";`,
		"other.mjs":                     "",
	})
	return root
}

// TestIdentitySourcesAreWhatTheEntryImports: a change counts as an edit
// of a plugin when it is of the entry, of a module the entry imports
// (by import, export … from, import() or require, with or without its
// extension, a .js import that is a .ts file, a JSON module, one in
// another directory of the workspace, one missing), or of a directory
// holding one; not of a file the plugin reads or writes beside its entry
// (a cache, a log), nor of a module it does not import.
func TestIdentitySourcesAreWhatTheEntryImports(t *testing.T) {
	root := pluginTree(t)
	at := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	s := IdentitySources(root, "./tools/p/plugin.mjs")
	for rel, want := range map[string]bool{
		"tools/p/plugin.mjs": true, "tools/p/lib/util.mjs": true, "tools/p/lib/deep.ts": true, "tools/p/data.json": true,
		"tools/p/cjs.js": true, "tools/shared/x.mjs": true, "tools/p/missing/gone.mjs": true, "tools/p/missing": true, "tools/p/lib": true,
		"tools/p/cache.json": false, "tools/p/plugin.log": false, "tools/p/cache": false, "tools/p/cache/answer.json": false,
		"tools/p/other.mjs": false, "tools/p/README.md": false, "tools/p/node_modules/dep/x.js": false, "other.mjs": false,
	} {
		if got := s.Counts(at(rel)); got != want {
			t.Errorf("path plugin: a change of %s counts %v, want %v", rel, got, want)
		}
	}
	for _, dir := range []string{"tools/p", "tools/p/lib", "tools/shared"} {
		if !slices.Contains(s.Dirs, at(dir)) {
			t.Errorf("path plugin: %s is not watched (%v)", dir, s.Dirs)
		}
	}
	if slices.Contains(s.Dirs, at("tools/p/cache")) || slices.Contains(s.Dirs, at("tools/p/node_modules")) {
		t.Errorf("path plugin watches a directory holding none of its sources: %v", s.Dirs)
	}
	r := IdentitySources(root, "./root-plugin.mjs")
	if !r.Counts(at("root-plugin.mjs")) || !r.Counts(at("tools/p/lib/deep.ts")) || r.Counts(at("other.mjs")) {
		t.Errorf("a plugin at the root does not count what it imports, or counts what it does not: %v", r.files)
	}
}

// TestIdentityChangesWithItsModulesOnly: the identity of a plugin
// changes when a module its entry imports is edited, and stays when a
// file it writes beside its entry (a cache, a log) is.
func TestIdentityChangesWithItsModulesOnly(t *testing.T) {
	root := pluginTree(t)
	d := Decl{Spec: "./tools/p/plugin.mjs", File: "vx.workspace.json"}
	identity := func() string {
		t.Helper()
		e, err := resolve(root, d)
		if err != nil {
			t.Fatal(err)
		}
		return e.Identity
	}
	was := identity()
	for _, rel := range []string{"tools/p/cache.json", "tools/p/plugin.log", "tools/p/cache/answer.json", "tools/p/other.mjs"} {
		testtree.Write(t, root, map[string]string{rel: "written by the plugin"})
		if now := identity(); now != was {
			t.Errorf("writing %s changed the plugin's identity", rel)
		}
	}
	for _, rel := range []string{"tools/p/lib/deep.ts", "tools/shared/x.mjs", "tools/p/data.json", "tools/p/missing/gone.mjs"} {
		testtree.Write(t, root, map[string]string{rel: "export const edited = true;\n"})
		if now := identity(); now == was {
			t.Errorf("editing %s, which the entry imports, kept the plugin's identity", rel)
		} else {
			was = now
		}
	}
	if err := os.Remove(filepath.Join(root, "tools/p/cjs.js")); err != nil {
		t.Fatal(err)
	}
	if identity() == was {
		t.Errorf("removing cjs.js, which the entry requires, kept the plugin's identity")
	}
}
