package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// genPlugin infers, in the project of the first file its globs match, a
// task for each name its module lib.mjs exports and each in its own
// list extra (a Node plugin of two files, the entry and a module beside
// it).
const genPlugin = `import { readFileSync } from "node:fs";
import { names } from "./lib.mjs";
const extra = [];
const req = JSON.parse(readFileSync(0, "utf8"));
const answer = (o) => process.stdout.write(JSON.stringify({ protocol: 1, ...o }));
if (req.stage === "describe") answer({ name: "gen", version: "1.0.0", stages: ["tasks"], globs: ["apps/*/package.json"] });
else answer({ tasks: [...names, ...extra].map((n) => ({ project: "web", name: n, file: req.files[0], command: "true" })) });
`

const genLib = `export const names = ["gen-a"];
`

// needNode skips (fails with CI=true) where node is not on PATH.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: this test runs a Node plugin")
	}
}

// awaitReload waits until the daemon's last reload was triggered by
// trigger (workspace-relative) and serves want tasks. It waits for the
// condition; the bound only stops a test that would otherwise hang.
func awaitReload(t *testing.T, r *running, trigger string, want int) {
	t.Helper()
	var st *wire.Status
	for bound := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		st = r.status(t)
		if st.LastReload != nil && st.LastReload.Trigger == trigger && st.Tasks == want {
			return
		}
		if time.Now().After(bound) {
			t.Fatalf("vxd did not reload on the edit of %s: last reload %+v, %d tasks (want %d), config error %q", trigger, st.LastReload, st.Tasks, want, st.ConfigError)
		}
	}
}

// edit rewrites the file at path, replacing old with new.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s holds no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReloadOnAnEditOfAPathPlugin: vxd reloads when the entry of a
// plugin declared by path, or a module beside it (part of its identity),
// is edited, and serves the tasks the edited plugin infers.
func TestReloadOnAnEditOfAPathPlugin(t *testing.T) {
	needNode(t)
	root := newWorkspace(t, `{"projects": ["apps/*"], "plugins": ["./tools/gen/plugin.mjs"]}`)
	testtree.Write(t, root, map[string]string{"tools/gen/plugin.mjs": genPlugin, "tools/gen/lib.mjs": genLib})
	r := serve(t, root, -1)
	before := r.status(t)
	if before.LastReload == nil || !before.LastReload.OK {
		t.Fatalf("the workspace did not load: %+v, %q", before.LastReload, before.ConfigError)
	}
	edit(t, filepath.Join(root, "tools/gen/lib.mjs"), `"gen-a"`, `"gen-a", "gen-b"`)
	awaitReload(t, r, "tools/gen/lib.mjs", before.Tasks+1)
	edit(t, filepath.Join(root, "tools/gen/plugin.mjs"), "const extra = [];", `const extra = ["gen-c"];`)
	awaitReload(t, r, "tools/gen/plugin.mjs", before.Tasks+2)
}

// TestReloadOnAnEditOfAPackagePlugin: for a plugin declared by package
// name, whose node_modules entry is a link into a pnpm store in the
// workspace, vxd reloads when the package's entry, or a module it
// imports (lib.mjs), is edited where the link leads, and when the link is
// pointed at another version.
func TestReloadOnAnEditOfAPackagePlugin(t *testing.T) {
	needNode(t)
	root := newWorkspace(t, `{"projects": ["apps/*"], "plugins": ["vx-plugin-gen"]}`)
	pkg := `{"name": "vx-plugin-gen", "version": "1.0.0", "vx": {"plugin": "./plugin.mjs"}}`
	v1 := "node_modules/.pnpm/vx-plugin-gen@1.0.0/node_modules/vx-plugin-gen"
	v2 := "node_modules/.pnpm/vx-plugin-gen@2.0.0/node_modules/vx-plugin-gen"
	testtree.Write(t, root, map[string]string{
		v1 + "/package.json": pkg, v1 + "/plugin.mjs": genPlugin, v1 + "/lib.mjs": genLib,
		v2 + "/package.json": pkg, v2 + "/plugin.mjs": strings.Replace(genPlugin, "const extra = [];", `const extra = ["v2-a", "v2-b"];`, 1), v2 + "/lib.mjs": genLib,
	})
	link := filepath.Join(root, "node_modules", "vx-plugin-gen")
	if err := os.Symlink(".pnpm/vx-plugin-gen@1.0.0/node_modules/vx-plugin-gen", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	r := serve(t, root, -1)
	before := r.status(t)
	if before.LastReload == nil || !before.LastReload.OK {
		t.Fatalf("the workspace did not load: %+v, %q", before.LastReload, before.ConfigError)
	}
	edit(t, filepath.Join(root, v1, "plugin.mjs"), "const extra = [];", `const extra = ["gen-c"];`)
	awaitReload(t, r, filepath.FromSlash(v1+"/plugin.mjs"), before.Tasks+1)
	edit(t, filepath.Join(root, v1, "lib.mjs"), `"gen-a"`, `"gen-a", "gen-b"`)
	awaitReload(t, r, filepath.FromSlash(v1+"/lib.mjs"), before.Tasks+2)
	// pnpm installs another version: a new link replaces the old one.
	tmp := link + ".new"
	if err := os.Symlink(".pnpm/vx-plugin-gen@2.0.0/node_modules/vx-plugin-gen", tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	awaitReload(t, r, filepath.FromSlash("node_modules/vx-plugin-gen"), before.Tasks+2)
}
