package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
)

const baseConfig = `{
  "projects": ["apps/*"],
  "tasks": {
    "build": {
      "command": "tsc -b",
      "inputs": ["src/**"],
      "outputs": ["dist/**"],
      "env": ["NODE_ENV"],
      "passEnv": ["HOME"],
      "dependsOn": ["^build"],
      "timeout": "5m",
      "exec": {"env": {"TOKEN": {"secret": true}}}
    },
    "//#fmt": {"command": "prettier -w ."}
  }
}`

func writeWorkspace(t *testing.T, root, config string) *workspace.Model {
	t.Helper()
	files := map[string]string{
		"vx.workspace.json":     config,
		"apps/web/package.json": `{"name": "web", "scripts": {"test": "vitest run"}}`,
	}
	testtree.Write(t, root, files)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return m
}

func TestWriteReadCheckUpToDate(t *testing.T) {
	root := t.TempDir()
	m := writeWorkspace(t, root, baseConfig)
	n, changed, err := Write(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || !changed {
		t.Errorf("Write = %d tasks, changed %v; want 3, true", n, changed)
	}
	if _, changed, _ := Write(m, nil); changed {
		t.Error("a second Write reported a change")
	}
	l, err := read(root)
	if err != nil {
		t.Fatal(err)
	}
	want := lockedTask{Command: "tsc -b", Inputs: []string{"src/**"}, Outputs: []string{"dist/**"}, Env: []string{"NODE_ENV"},
		PassEnv: []string{"HOME"}, Secrets: []string{"TOKEN"}, DependsOn: []string{"^build"}, Cache: true, Timeout: "5m"}
	if got := l.Tasks["web#build"]; !reflect.DeepEqual(got, want) {
		t.Errorf("web#build = %+v, want %+v", got, want)
	}
	if got := l.Tasks["web#test"].Command; got != "vitest run" {
		t.Errorf("web#test command = %q", got)
	}
	if got := l.Tasks["//#fmt"].Command; got != "prettier -w ." {
		t.Errorf("//#fmt command = %q", got)
	}
	if l.Version != lockVersion {
		t.Errorf("version = %d", l.Version)
	}
	res, err := Check(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.UpToDate || !res.Present || res.ExitCode != 0 || len(res.Problems) != 0 || len(res.NotAudited) != 0 {
		t.Errorf("Check = %+v, want up to date", res)
	}
	if want := []string{"//#fmt", "web#build", "web#test"}; !reflect.DeepEqual(res.Audited, want) {
		t.Errorf("audited = %v, want %v", res.Audited, want)
	}
	if res.File != filepath.Join(root, Name) {
		t.Errorf("File = %q", res.File)
	}
}

func TestCheckDriftPerField(t *testing.T) {
	tests := []struct {
		field, from, to string // config text replaced
		locked, current string
	}{
		{"command", `"command": "tsc -b"`, `"command": "tsc -b --force"`, "tsc -b", "tsc -b --force"},
		{"inputs", `"inputs": ["src/**"]`, `"inputs": ["src/**", "package.json"]`, "src/**", "src/**, package.json"},
		{"outputs", `"outputs": ["dist/**"]`, `"outputs": []`, "dist/**", ""},
		{"env", `"env": ["NODE_ENV"]`, `"env": ["NODE_ENV", "API_URL"]`, "NODE_ENV", "NODE_ENV, API_URL"},
		{"passEnv", `"passEnv": ["HOME"]`, `"passEnv": ["HOME", "USER"]`, "HOME", "HOME, USER"},
		{"secrets", `"TOKEN": {"secret": true}`, `"NPM_TOKEN": {"secret": true}`, "TOKEN", "NPM_TOKEN"},
		{"dependsOn", `"dependsOn": ["^build"]`, `"dependsOn": ["^build", "codegen"]`, "^build", "^build, codegen"},
		{"cache", `"timeout": "5m"`, `"timeout": "5m", "cache": false`, "true", "false"},
		{"timeout", `"timeout": "5m"`, `"timeout": "10m"`, "5m", "10m"},
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			root := t.TempDir()
			m := writeWorkspace(t, root, baseConfig+"\n// codegen\n")
			if _, _, err := Write(m, nil); err != nil {
				t.Fatal(err)
			}
			cfg := strings.Replace(baseConfig, tc.from, tc.to, 1)
			if cfg == baseConfig {
				t.Fatalf("replacement %q not in config", tc.from)
			}
			if tc.field == "dependsOn" {
				cfg = strings.Replace(cfg, `"//#fmt"`, `"codegen": {}, "//#fmt"`, 1)
			}
			m = writeWorkspace(t, root, cfg)
			res, err := Check(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []Problem{{TaskID: "web#build", Field: tc.field, Locked: tc.locked, Current: tc.current}}
			if !reflect.DeepEqual(res.Problems, want) {
				t.Errorf("problems = %+v, want %+v", res.Problems, want)
			}
			if res.UpToDate || res.ExitCode != 1 {
				t.Errorf("upToDate %v exit %d, want false 1", res.UpToDate, res.ExitCode)
			}
			if want := []string{"//#fmt", "web#test"}; !reflect.DeepEqual(res.Audited, want) {
				t.Errorf("audited = %v, want %v (the drifted task is not audited)", res.Audited, want)
			}
		})
	}
}

func TestCheckAddedRemovedNotAudited(t *testing.T) {
	root := t.TempDir()
	m := writeWorkspace(t, root, baseConfig)
	if _, _, err := Write(m, nil); err != nil {
		t.Fatal(err)
	}
	// fmt removed, lint added at the root.
	cfg := strings.Replace(baseConfig, `"//#fmt": {"command": "prettier -w ."}`, `"//#lint": {"command": "eslint ."}`, 1)
	m = writeWorkspace(t, root, cfg)
	res, err := Check(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{TaskID: "//#fmt", Field: "task", Locked: "defined", Current: "(absent)"},
		{TaskID: "//#lint", Field: "task", Locked: "(absent)", Current: "defined"},
	}
	if !reflect.DeepEqual(res.Problems, want) {
		t.Errorf("problems = %+v, want %+v", res.Problems, want)
	}
	if want := []string{"//#lint"}; !reflect.DeepEqual(res.NotAudited, want) {
		t.Errorf("notAudited = %v, want %v", res.NotAudited, want)
	}
	if want := []string{"web#build", "web#test"}; !reflect.DeepEqual(res.Audited, want) {
		t.Errorf("audited = %v, want %v", res.Audited, want)
	}
	if res.ExitCode != 1 || res.UpToDate {
		t.Errorf("exit %d upToDate %v", res.ExitCode, res.UpToDate)
	}
}

func TestCheckMissingLock(t *testing.T) {
	root := t.TempDir()
	m := writeWorkspace(t, root, baseConfig)
	res, err := Check(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Present || res.UpToDate || res.ExitCode != 1 {
		t.Errorf("present %v upToDate %v exit %d; want false false 1", res.Present, res.UpToDate, res.ExitCode)
	}
	if want := []string{"//#fmt", "web#build", "web#test"}; !reflect.DeepEqual(res.NotAudited, want) {
		t.Errorf("notAudited = %v, want %v", res.NotAudited, want)
	}
	if !strings.Contains(res.Note, "vx lock") {
		t.Errorf("note %q does not say how to create the lock", res.Note)
	}
	if _, err := read(root); !errors.Is(err, errMissing) {
		t.Errorf("read = %v, want errMissing", err)
	}
}

func TestReadInvalidLock(t *testing.T) {
	tests := []struct {
		name, body string
	}{
		{"trailing text after the object", `{"version": 1, "tasks": {}} {"version": 2}`},
		{"bad JSON", `{"version": 1, "tasks": {`},
		{"not an object", `[]`},
		{"empty file", ``},
		{"wrong version", `{"version": 2, "tasks": {}}`},
		{"no version", `{"tasks": {}}`},
		{"unknown top-level key", `{"version": 1, "tasks": {}, "extra": true}`},
		{"unknown task key", `{"version": 1, "tasks": {"web#build": {"command": "x", "cmd": "y"}}}`},
		{"missing tasks", `{"version": 1}`},
		{"null tasks", `{"version": 1, "tasks": null}`},
		{"wrong type", `{"version": 1, "tasks": {"web#build": {"cache": "yes"}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			m := writeWorkspace(t, root, baseConfig)
			path := filepath.Join(root, Name)
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			for name, f := range map[string]func() error{
				"Read":  func() error { _, err := read(root); return err },
				"Check": func() error { _, err := Check(m, nil); return err },
			} {
				err := f()
				if err == nil {
					t.Errorf("%s succeeded on an invalid lock", name)
					continue
				}
				if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "vx lock") {
					t.Errorf("%s error %q does not name %s and say to regenerate with `vx lock`", name, err, path)
				}
			}
		})
	}
}

func TestSecretsMasked(t *testing.T) {
	const literal = "hunter2-literal-value"
	cfg := `{
  "projects": ["apps/*"],
  "tasks": {
    "deploy": {"command": "deploy --token ` + literal + `", "cache": false,
               "exec": {"env": {"DEPLOY_TOKEN": {"value": "` + literal + `", "secret": true}}}}
  }
}`
	mask := secret.NewMasker(literal)
	root := t.TempDir()
	m := writeWorkspace(t, root, cfg)
	if _, _, err := Write(m, mask); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, Name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), literal) {
		t.Errorf("vx.lock holds the secret in clear:\n%s", b)
	}
	if !strings.Contains(string(b), "deploy --token ***") {
		t.Errorf("vx.lock lacks the masked command:\n%s", b)
	}
	res, err := Check(m, mask)
	if err != nil || !res.UpToDate {
		t.Fatalf("Check = %+v, %v; want up to date", res, err)
	}

	t.Run("drift in a command with a secret is masked", func(t *testing.T) {
		m := writeWorkspace(t, root, strings.Replace(cfg, "deploy --token", "deploy --prod --token", 1))
		res, err := Check(m, mask)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Problems) != 1 || res.Problems[0].Field != "command" {
			t.Fatalf("problems = %+v, want one command drift", res.Problems)
		}
		p := res.Problems[0]
		if p.Locked != "deploy --token ***" || p.Current != "deploy --prod --token ***" {
			t.Errorf("problem = %+v", p)
		}
	})

	t.Run("a lock written before the value was secret is masked in problems", func(t *testing.T) {
		root := t.TempDir()
		plain := strings.Replace(cfg, `"secret": true`, `"secret": false`, 1)
		m := writeWorkspace(t, root, plain)
		if _, _, err := Write(m, nil); err != nil {
			t.Fatal(err)
		}
		m = writeWorkspace(t, root, cfg)
		res, err := Check(m, mask)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Problems {
			if strings.Contains(p.Locked+p.Current, literal) {
				t.Errorf("problem %+v shows the secret a lock written before it was secret recorded", p)
			}
		}
	})
}

func TestGenerateSkipsNoOps(t *testing.T) {
	root := t.TempDir()
	m := writeWorkspace(t, root, `{"projects": ["apps/*"], "tasks": {"topo": {"dependsOn": ["^topo"]}}}`)
	l := generate(m, nil)
	if _, ok := l.Tasks["web#topo"]; ok {
		t.Error("a no-op task is recorded in the lock")
	}
	if _, ok := l.Tasks["web#test"]; !ok {
		t.Errorf("web#test missing from %v", l.Tasks)
	}
	// Lists are never null in the encoded lock.
	if strings.Contains(string(l.Encode()), "null") {
		t.Errorf("encoded lock has null:\n%s", l.Encode())
	}
}
