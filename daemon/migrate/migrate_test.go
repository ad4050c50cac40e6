package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// layouts are the repositories under testdata, each with a golden plan.
var layouts = []string{"turbo-pnpm", "turbo-v1-npm", "nx", "npm-scripts", "turbo-malformed"}

// copyLayout copies testdata/name into a fresh temporary directory.
func copyLayout(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func planJSON(t *testing.T, p *Plan) []byte {
	t.Helper()
	c := *p
	c.Root = "ROOT"
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// planLayout copies testdata layout name into a temp dir and plans its
// migration there.
func planLayout(t *testing.T, name string) (string, *Plan) {
	t.Helper()
	dir := copyLayout(t, name)
	p, err := PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, p
}

func TestGolden(t *testing.T) {
	for _, name := range layouts {
		t.Run(name, func(t *testing.T) {
			_, p := planLayout(t, name)
			got := planJSON(t, p)
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./daemon/migrate -run TestGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("plan differs from %s (run with -update to accept):\n%s", golden, got)
			}
		})
	}
}

// TestApplyLoads writes each plan and checks vx loads it and plans build.
func TestApplyLoads(t *testing.T) {
	for _, name := range layouts {
		t.Run(name, func(t *testing.T) {
			dir, p := planLayout(t, name)
			written, err := Apply(p, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(written) != len(p.Files) || written[0] != workspace.ConfigFile {
				t.Errorf("written = %v, want every file of the plan, vx.workspace.json first", written)
			}
			for _, f := range p.Files {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err != nil || string(b) != f.Text {
					t.Errorf("%s on disk differs from the plan's text (err %v)", f.Path, err)
				}
			}
			m, err := workspace.Load(dir)
			if err != nil {
				t.Fatalf("loading the written config: %v\n%s", err, p.Files[0].Text)
			}
			g, err := m.Build([]string{"build"}, nil, true)
			if err != nil {
				t.Fatalf("building the task graph for build: %v", err)
			}
			if len(g.Executable()) == 0 {
				t.Errorf("build runs nothing in %s", name)
			}
			leftovers, _ := filepath.Glob(filepath.Join(dir, ".vx-init-*"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left behind: %v", leftovers)
			}
		})
	}
}

func TestApplyRefusesToOverwrite(t *testing.T) {
	dir := copyLayout(t, "turbo-pnpm")
	first, err := PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(first, dir, nil); err != nil {
		t.Fatal(err)
	}
	edited := "// mine\n{ \"projects\": [\"apps/*\"] }\n"
	cfg := filepath.Join(dir, workspace.ConfigFile)
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	// Applying a plan made before the file existed is refused, naming the file and --force.
	_, err = Apply(first, dir, nil)
	if err == nil || !strings.Contains(err.Error(), workspace.ConfigFile) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("Apply over an existing config: err = %v, want a refusal naming %s and --force", err, workspace.ConfigFile)
	}
	if b, _ := os.ReadFile(cfg); string(b) != edited {
		t.Fatal("a refused Apply changed vx.workspace.json")
	}

	// A new plan keeps it, with its current text.
	kept, err := PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := kept.Files[0]; f.Action != ActionKept || f.Text != edited {
		t.Errorf("existing config: action %q text %q, want kept with the current text", f.Action, f.Text)
	}
	if written, err := Apply(kept, dir, nil); err == nil || len(written) != 0 || !strings.Contains(err.Error(), "--force") {
		t.Errorf("applying a plan that keeps the config: written %v, err %v; want a refusal naming --force", written, err)
	}

	// With Force it is replaced.
	force := &Options{Force: true}
	replaced, err := PlanInit(context.Background(), dir, force)
	if err != nil {
		t.Fatal(err)
	}
	if replaced.Files[0].Action != ActionReplaced {
		t.Errorf("with Force: action %q, want replaced", replaced.Files[0].Action)
	}
	if _, err := Apply(replaced, dir, force); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cfg); string(b) != replaced.Files[0].Text {
		t.Error("Apply with Force did not replace vx.workspace.json")
	}
}

func TestApplyRejectsPathsOutsideRoot(t *testing.T) {
	dir := t.TempDir()
	p := &Plan{Root: dir, Files: []File{{Path: "../escape.json", Action: ActionNew, Text: "{}"}}}
	if _, err := Apply(p, dir, nil); err == nil {
		t.Fatal("Apply wrote outside the root")
	}
}

func TestPlanInitWritesNothing(t *testing.T) {
	for _, name := range layouts {
		dir := copyLayout(t, name)
		before := listTree(t, dir)
		if _, err := PlanInit(context.Background(), dir, &Options{Force: true}); err != nil {
			t.Fatal(err)
		}
		if after := listTree(t, dir); after != before {
			t.Errorf("%s: PlanInit changed the tree:\n%s\nvs\n%s", name, before, after)
		}
	}
}

func listTree(t *testing.T, dir string) string {
	var sb strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		sb.WriteString(rel + "\n")
		return nil
	})
	return sb.String()
}

func TestMalformedTurboStillMigrates(t *testing.T) {
	p, err := PlanInit(context.Background(), filepath.Join("testdata", "turbo-malformed"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var syntax *Todo
	for i, td := range p.Todos {
		if td.File == "turbo.json" && td.Line > 0 {
			syntax = &p.Todos[i]
		}
	}
	if syntax == nil || syntax.Line != 6 || syntax.Col != 7 {
		t.Fatalf("want a todo at turbo.json:6:7 (the missing comma), got %+v", p.Todos)
	}
	text := p.Files[0].Text
	for _, want := range []string{`"packages/*"`, `"^build"`, `"build"`, `"test"`, `"lint"`} {
		if !strings.Contains(text, want) {
			t.Errorf("vx.workspace.json lacks %s:\n%s", want, text)
		}
	}
}

func TestSourceNone(t *testing.T) {
	dir := t.TempDir()
	p, err := PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != sourceNone || p.PackageManager != "" || len(p.Todos) == 0 {
		t.Errorf("empty directory: source %q, pm %q, todos %v", p.Source, p.PackageManager, p.Todos)
	}
	if _, err := Apply(p, dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.Load(dir); err != nil {
		t.Errorf("loading the config proposed for an empty directory: %v", err)
	}
}

func TestSourcePnpm(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pnpm-workspace.yaml", "packages:\n  - libs/*\n")
	write("libs/core/package.json", `{"name": "core", "scripts": {"build": "tsc", "lint": "eslint ."}}`)
	write("libs/cli/package.json", `{"name": "cli", "scripts": {"build": "tsc"}, "dependencies": {"core": "workspace:*"}}`)
	p, err := PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != sourcePnpm || p.PackageManager != "pnpm" {
		t.Errorf("source %q, package manager %q; want pnpm, pnpm", p.Source, p.PackageManager)
	}
	if _, err := Apply(p, dir, nil); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Build([]string{"build"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := g.ByID["cli#build"]; n == nil || len(n.DepIDs) != 1 || n.DepIDs[0] != "core#build" {
		t.Errorf("cli#build should wait for core#build: %+v", n)
	}
}

func TestPnpmPackages(t *testing.T) {
	got := pnpmPackages("# ws\npackages:\n  - 'apps/*' # apps\n  - \"packages/**\"\n  - '!**/test/**'\ncatalog:\n  react: ^18\n")
	want := []string{"apps/*", "packages/**", "!**/test/**"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("block list: %q, want %q", got, want)
	}
	if got := pnpmPackages("packages: [apps/*, 'libs/*']\n"); strings.Join(got, ",") != "apps/*,libs/*" {
		t.Errorf("flow list: %q", got)
	}
}
