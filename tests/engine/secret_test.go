//go:build !windows

package engine_test

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretsAreMaskedEverywhere(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "secret")
	token := "vxsecret-" + rand.Text()
	env := []string{"TOKEN=" + token}

	var outputs []result
	check := func(r result) {
		t.Helper()
		outputs = append(outputs, r)
		if strings.Contains(r.Stdout, token) || strings.Contains(r.Stderr, token) {
			t.Errorf("the secret value appears in the output of vx %s\n%s", strings.Join(r.Args, " "), r)
		}
	}

	// Human form: build passes, leak fails and prints the token.
	r := vx(t, ws, env, "run", "build", "leak", "--continue")
	if r.Code != 1 {
		t.Fatalf("want exit 1 (leak fails)\n%s", r)
	}
	check(r)
	for _, want := range []string{"app#build: the token is ***", "app#build: stderr ***", "app#leak: about to fail with ***"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("human output lacks %q\n%s", want, r)
		}
	}
	// The value reached the task: it wrote the value's hex to its output.
	if got := readFile(t, filepath.Join(ws, "app/dist/hex")); got != hex.EncodeToString([]byte(token)) {
		t.Errorf("app/dist/hex = %q: the task did not receive the secret value", got)
	}

	// JSON form (build is a hit: the replayed log is masked too).
	s, r := runJSON(t, ws, env, 1, "build", "leak", "--continue")
	check(r)
	if s.row(t, "app#build").Cache != "hit" {
		t.Errorf("app#build was not a hit on the second run")
	}
	if !strings.Contains(r.Stderr, "app#build: the token is ***") {
		t.Errorf("the replayed log is missing\n%s", r)
	}

	// Every question verb, both forms.
	for _, args := range [][]string{
		{"show"}, {"show", "app#build"}, {"show", "app#leak"},
		{"last"}, {"last", "--list"}, {"last", "--run", s.RunID},
		{"last", "--log", "app#build"}, {"last", "--log", "app#leak"},
		{"why", "app#build"}, {"why", "app#leak"},
		{"run", "build", "--dry=json"},
	} {
		check(vxOK(t, ws, env, args...))
		check(vxOK(t, ws, env, append(args, "--format", "json")...))
	}

	var show struct {
		Projects []struct {
			Tasks []struct {
				ExecEnv map[string]string `json:"execEnv"`
				Secrets []string          `json:"secrets"`
			} `json:"tasks"`
		} `json:"projects"`
	}
	answerJSON(t, ws, &show, "show", "app#build")
	if tk := show.Projects[0].Tasks[0]; tk.ExecEnv["TOKEN"] != "***" || !contains(tk.Secrets, "TOKEN") {
		t.Errorf("vx show app#build: execEnv %v secrets %v, want TOKEN shown as *** and listed as a secret", tk.ExecEnv, tk.Secrets)
	}
	for _, tc := range []struct{ task, source, want string }{
		{"app#build", "cache", "the token is ***"},
		{"app#leak", "failure", "about to fail with ***"},
	} {
		var log struct {
			Source *string `json:"source"`
			Output string  `json:"output"`
		}
		answerJSON(t, ws, &log, "last", "--log", tc.task)
		if log.Source == nil || *log.Source != tc.source || !strings.Contains(log.Output, tc.want) {
			t.Errorf("vx last --log %s: source %v output %q, want source %s with %q", tc.task, log.Source, log.Output, tc.source, tc.want)
		}
	}

	// Nothing vx stored holds the value, compressed or not.
	if hits := findSecret(t, filepath.Join(ws, ".vx"), []byte(token)); len(hits) > 0 {
		t.Errorf("the secret value is stored in clear under .vx/:\n%s", strings.Join(hits, "\n"))
	}
	if hits := findSecret(t, filepath.Join(ws, "app/dist"), []byte(token)); len(hits) > 0 {
		t.Errorf("the secret value is in the outputs: %v", hits)
	}
	if len(outputs) < 20 {
		t.Fatalf("checked only %d outputs", len(outputs))
	}
}
