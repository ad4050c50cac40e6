// Package layering_test holds vx's packages to their layers (README,
// "Layers"): each package's imports point down, never up or across, and
// each binary links only the layers it uses. It reads the import graph
// with `go list`, so a new import that breaks a rule fails here.
package layering_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

const mod = "github.com/vzn/vx/"

// goList runs go list in the module root and returns its output.
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go is not on PATH: %v", err)
		}
		t.Skipf("go is not on PATH (%v): the layering rules read the import graph with it", err)
	}
	cmd := exec.Command(goBin, append([]string{"list"}, args...)...)
	cmd.Dir = harness.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// imports is every package of the module (tests and scripts aside) with
// the packages of the module it imports, without the module prefix.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(goList(t, "-json=ImportPath,Imports", "./..."))))
	out := map[string][]string{}
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, mod)
		if strings.HasPrefix(name, "tests/") || strings.HasPrefix(name, "scripts/") {
			continue
		}
		var ours []string
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, mod) {
				ours = append(ours, strings.TrimPrefix(imp, mod))
			}
		}
		out[name] = ours
	}
	if len(out) < 20 {
		t.Fatalf("go list ./... listed %d packages: the rules would hold vacuously", len(out))
	}
	return out
}

// under reports whether pkg is one of the prefixes or below one.
func under(pkg string, prefixes ...string) bool {
	for _, p := range prefixes {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// The layers, bottom up. shared is what vxd and vx-platform both serve
// with; the engine is daemon/ without vxd's own server and MCP catalog.
var (
	shared    = []string{"opkit", "mcpserver", "httpapi", "pagekit"}
	vxdServer = []string{"daemon/server", "daemon/tools"}
)

func engine(pkg string) bool { return under(pkg, "daemon") && !under(pkg, vxdServer...) }

// rule is a layer and what its packages may not import.
type rule struct {
	name   string
	layer  func(pkg string) bool
	denied func(imp string) bool
}

var rules = []rule{
	{"protocol imports nothing of ours outside protocol/",
		func(p string) bool { return under(p, "protocol") },
		func(i string) bool { return !under(i, "protocol") }},
	{"internal/ and docs are leaves over protocol/",
		func(p string) bool { return under(p, "internal", "docs") },
		func(i string) bool { return !under(i, "protocol", "internal") }},
	{"the shared kit and servers import only protocol/, internal/ and each other",
		func(p string) bool { return under(p, shared...) },
		func(i string) bool { return !under(i, "protocol", "internal") && !under(i, shared...) }},
	{"client/ talks the protocol and nothing else of ours",
		func(p string) bool { return under(p, "client") },
		func(i string) bool { return !under(i, "protocol", "internal", "client") }},
	{"the engine never imports a server, a command line or the platform",
		engine,
		func(i string) bool {
			return under(i, vxdServer...) || under(i, "mcpserver", "httpapi", "pagekit", "cli", "platform", "cmd")
		}},
	{"vxd's server never imports a command line or the platform",
		func(p string) bool { return under(p, vxdServer...) },
		func(i string) bool { return under(i, "cli", "platform", "cmd") }},
	{"the platform never imports the engine (but the cache key it diffs), vxd, a command line (but the one flag binder, cli/cmdline) or the client",
		func(p string) bool { return under(p, "platform") },
		func(i string) bool {
			return under(i, "daemon", "cli", "client", "cmd") && i != "daemon/taskkey" && i != "cli/cmdline"
		}},
	{"cli/cmdline, the flag binder all three command lines share, imports nothing of ours but protocol/",
		func(p string) bool { return p == "cli/cmdline" },
		func(i string) bool { return !under(i, "protocol") }},
	{"the command lines never import the platform",
		func(p string) bool { return under(p, "cli") },
		func(i string) bool { return under(i, "platform") }},
}

// TestImportsPointDown: every package's imports keep its layer's rule.
func TestImportsPointDown(t *testing.T) {
	graph := imports(t)
	for _, r := range rules {
		matched := 0
		for pkg, imps := range graph {
			if !r.layer(pkg) {
				continue
			}
			matched++
			for _, imp := range imps {
				if r.denied(imp) {
					t.Errorf("%s: %s imports %s", r.name, pkg, imp)
				}
			}
		}
		if matched == 0 {
			t.Errorf("%s: no package is in the layer (the rule holds vacuously)", r.name)
		}
	}
}

// TestPlatformLinksNoEngine: vx-platform links none of the engine: no
// SQLite (cgo), runner, sandbox, migration, cache, file hashing, history,
// workspace loading, operations or vxd catalog; it links the shared MCP
// server and operation kit.
func TestPlatformLinksNoEngine(t *testing.T) {
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(goList(t, "-deps", "./cmd/vx-platform"))) {
		deps[p] = true
	}
	for _, want := range []string{mod + "mcpserver", mod + "opkit", mod + "platform/api"} {
		if !deps[want] {
			t.Fatalf("go list -deps ./cmd/vx-platform lacks %s (the rule below would hold vacuously)", want)
		}
	}
	for _, p := range []string{"github.com/mattn/go-sqlite3", mod + "daemon/runner", mod + "daemon/sandbox", mod + "daemon/migrate",
		mod + "daemon/cache", mod + "daemon/hashing", mod + "daemon/history", mod + "daemon/workspace", mod + "daemon/ops",
		mod + "daemon/tools", mod + "daemon/docsearch", mod + "daemon/platformpush"} {
		if deps[p] {
			t.Errorf("cmd/vx-platform links %s, a part of the engine", p)
		}
	}
}
