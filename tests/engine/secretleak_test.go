//go:build !windows

package engine_test

import (
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// inlineSecretWorkspace declares a secret with an inline value that the
// task's command also spells out, and one written with JSON escapes.
func inlineSecretWorkspace(t *testing.T, version string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "inline")
	writeFiles(t, ws, map[string]string{
		"vx.workspace.json": `{
  "projects": ["app"],
  "tasks": {
    "api": {
      "command": "echo calling api with inlinesecret123 ` + version + `",
      "inputs": ["package.json"],
      "exec": { "env": {
        "TOK": { "secret": true, "value": "inlinesecret123" },
        "PW": { "secret": true, "value": "pa\"ss/wo\\rd" }
      } }
    }
  }
}
`,
		"app/package.json": `{"name": "app"}`,
	})
	return ws
}

// TestInitDryMasksTheKeptConfig: vx init --dry shows an existing
// vx.workspace.json as kept, with its secret values masked (issue 9.1).
func TestInitDryMasksTheKeptConfig(t *testing.T) {
	t.Parallel()
	ws := inlineSecretWorkspace(t, "v1")
	for _, args := range [][]string{{"init", "--dry"}, {"init", "--dry", "--format", "json"}} {
		r := vxOK(t, ws, nil, args...)
		for _, spelt := range []string{"inlinesecret123", `pa\"ss/wo\\rd`, `pa\\\"ss/wo\\\\rd`, `pa"ss/wo\rd`} {
			if strings.Contains(r.Stdout+r.Stderr, spelt) {
				t.Errorf("vx %s shows the secret value %s\n%s", strings.Join(args, " "), spelt, r)
			}
		}
		if !strings.Contains(r.Stdout, "kept") {
			t.Errorf("vx %s does not show the config as kept\n%s", strings.Join(args, " "), r)
		}
	}
}

// TestDefinitionDiffIsMasked: a secret's value inside a command is masked
// in vx why, and the key components stored in .vx/vx.db never hold it
// (issue 9.3).
func TestDefinitionDiffIsMasked(t *testing.T) {
	t.Parallel()
	ws := inlineSecretWorkspace(t, "v1")
	vxOK(t, ws, nil, "run", "api")
	cfg := filepath.Join(ws, "vx.workspace.json")
	writeFiles(t, ws, map[string]string{"vx.workspace.json": strings.Replace(readFile(t, cfg), "inlinesecret123 v1", "inlinesecret123 v2", 1)})
	vxOK(t, ws, nil, "run", "api")
	for _, args := range [][]string{{"why", "app#api"}, {"why", "app#api", "--format", "json"}} {
		r := vxOK(t, ws, nil, args...)
		if strings.Contains(r.Stdout+r.Stderr, "inlinesecret123") {
			t.Errorf("vx %s shows the secret value\n%s", strings.Join(args, " "), r)
		}
		if !strings.Contains(r.Stdout, "*** v2") {
			t.Errorf("vx %s does not show the masked definition change\n%s", strings.Join(args, " "), r)
		}
	}
	if hits := findSecret(t, filepath.Join(ws, ".vx"), []byte("inlinesecret123")); len(hits) > 0 {
		t.Errorf("the secret value is stored in clear under .vx/:\n%s", strings.Join(hits, "\n"))
	}
}

// TestLogCapNeverCutsASecret: output past the 16 MiB cap, with a secret
// straddling it, leaves no part of the value in the cache log, the
// history or any answer (issue 9.4).
func TestLogCapNeverCutsASecret(t *testing.T) {
	t.Parallel()
	token := rand.Text() + rand.Text()
	prefix := token[:6] // what the cap used to leave: 16 MiB is 16,777,210 bytes of x and 6 of the value
	ws := filepath.Join(t.TempDir(), "cap")
	print := `head -c 16777210 /dev/zero | tr '\0' x; echo "$TOKEN"`
	pkg, _ := json.Marshal(map[string]any{"name": "app", "scripts": map[string]string{"big": print, "bigfail": print + "; exit 3"}})
	writeFiles(t, ws, map[string]string{
		"vx.workspace.json": `{
  "projects": ["app"],
  "tasks": {
    "big": { "inputs": ["package.json"], "exec": { "env": { "TOKEN": { "secret": true } } } },
    "bigfail": { "cache": false, "exec": { "env": { "TOKEN": { "secret": true } } } }
  }
}
`,
		"app/package.json": string(pkg),
	})
	env := []string{"TOKEN=" + token}
	r := vx(t, ws, env, "run", "big", "bigfail", "--continue")
	if r.Code != 1 {
		t.Fatalf("want exit 1 (bigfail fails)\n%.2000s", r.Stderr)
	}
	if strings.Contains(r.Stdout+r.Stderr, prefix) {
		t.Errorf("vx run prints part of the secret")
	}
	for _, args := range [][]string{
		{"last", "--log", "app#big", "--format", "json"}, {"last", "--log", "app#bigfail", "--format", "json"},
		{"last", "--format", "json"}, {"run", "big"},
	} {
		r := vxOK(t, ws, env, args...)
		if strings.Contains(r.Stdout+r.Stderr, prefix) {
			t.Errorf("vx %s shows part of the secret", strings.Join(args, " "))
		}
		if args[0] == "last" && args[1] == "--log" && !strings.Contains(r.Stdout, "xxx***") {
			t.Errorf("vx %s does not show the masked value at the end of the log: %.300q", strings.Join(args, " "), r.Stdout[max(0, len(r.Stdout)-300):])
		}
	}
	if hits := findSecret(t, filepath.Join(ws, ".vx"), []byte(prefix)); len(hits) > 0 {
		t.Errorf("part of the secret value is stored under .vx/:\n%s", strings.Join(hits, "\n"))
	}
}

// TestBrokenConfigErrorIsMasked: a configuration that fails to load
// because a secret's value sits in a mistyped field never prints it
// (issue 9.5).
func TestBrokenConfigErrorIsMasked(t *testing.T) {
	t.Parallel()
	ws := filepath.Join(t.TempDir(), "broken")
	writeFiles(t, ws, map[string]string{
		"vx.workspace.json": `{
  "projects": ["app"],
  "tasks": {
    "leak": {
      "timeout": "hunter2literal",
      "exec": { "env": { "TOK": { "secret": true, "value": "hunter2literal" } } }
    }
  }
}
`,
		"app/package.json": `{"name": "app", "scripts": {"leak": "echo leak"}}`,
	})
	for _, args := range [][]string{{"run", "leak"}, {"run", "leak", "--format", "json"}, {"show"}, {"why", "app#leak"}, {"last"}} {
		r := vx(t, ws, nil, args...)
		if r.Code != 2 {
			t.Errorf("vx %s: exit %d, want 2 (the config does not load)\n%s", strings.Join(args, " "), r.Code, r)
		}
		if strings.Contains(r.Stdout+r.Stderr, "hunter2literal") {
			t.Errorf("vx %s prints the secret value\n%s", strings.Join(args, " "), r)
		}
		if !strings.Contains(r.Stderr, "vx.workspace.json:5:") || !strings.Contains(r.Stderr, "tasks.leak.timeout: not a duration") {
			t.Errorf("vx %s does not name the file, line and field\n%s", strings.Join(args, " "), r)
		}
	}
	// vx info reports the error as an answer, masked the same way.
	for _, args := range [][]string{{"info"}, {"info", "--format", "json"}} {
		r := vx(t, ws, nil, args...)
		if strings.Contains(r.Stdout+r.Stderr, "hunter2literal") {
			t.Errorf("vx %s prints the secret value\n%s", strings.Join(args, " "), r)
		}
		if !strings.Contains(r.Stdout, "tasks.leak.timeout") {
			t.Errorf("vx %s does not report the config error\n%s", strings.Join(args, " "), r)
		}
	}
}

// TestSecretListedInEnvJoinsNoKey: a secret also listed in `env` joins
// neither the key nor the stored components, not even as a hash: rotating
// it keeps the cache hit.
func TestSecretListedInEnvJoinsNoKey(t *testing.T) {
	t.Parallel()
	ws := filepath.Join(t.TempDir(), "envsecret")
	writeFiles(t, ws, map[string]string{
		"vx.workspace.json": `{"projects": ["app"], "tasks": {"build": {"inputs": ["package.json"], "env": ["TOKEN"], "exec": {"env": {"TOKEN": {"secret": true}}}}}}`,
		"app/package.json":  `{"name": "app", "scripts": {"build": "echo built"}}`,
	})
	runJSON(t, ws, []string{"TOKEN=" + rand.Text()}, 0, "build")
	s, _ := runJSON(t, ws, []string{"TOKEN=" + rand.Text()}, 0, "build")
	if got := s.row(t, "app#build").Cache; got != "hit" {
		t.Errorf("after rotating the secret app#build was %q, want a hit: the secret's value joined the key", got)
	}
}
