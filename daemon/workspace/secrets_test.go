package workspace_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

func TestSecretValuesOfABrokenConfig(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"mistyped timeout", map[string]string{
			"vx.workspace.json": `{"tasks": {"leak": {"timeout": "hunter2literal", "exec": {"env": {"TOK": {"secret": true, "value": "hunter2literal"}, "FROMENV": {"secret": true}, "PLAIN": "notsecret"}}}}}`,
		}, []string{"envvalue", "hunter2literal"}},
		{"broken part-way: what precedes the break is read", map[string]string{
			"vx.workspace.json": `{"tasks": {"a": {"exec": {"env": {"K": {"value": "before-break", "secret": true}}}}, "b": {"command": oops}}}`,
		}, []string{"before-break"}},
		{"mistyped secret flag still masks", map[string]string{
			"vx.workspace.json": `{"tasks": {"a": {"exec": {"env": {"K": {"secret": "yes", "value": "typo-secret"}, "L": {"secret": false, "value": "public"}}}}}}`,
		}, []string{"typo-secret"}},
		{"project files, with comments", map[string]string{
			"vx.workspace.json":      `{"projects": ["pkgs/*"], "workers": "many"}`,
			"pkgs/a/vx.project.json": "{ // a comment with a \" quote\n \"tasks\": {\"t\": {\"exec\": {\"env\": {\"S\": {\"secret\": true, \"value\": \"in-project\"}}}}}}",
			"pkgs/a/package.json":    `{"name": "a"}`,
		}, []string{"in-project"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			if _, err := workspace.Load(root); err == nil {
				t.Fatalf("the config loaded; the case needs a broken one")
			}
			got := workspace.SecretValues(root, nil, map[string]string{"FROMENV": "envvalue", "PLAIN": "x"})
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("SecretValues = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTimeoutErrorNeverQuotesTheValue(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"vx.workspace.json": "{\n  \"tasks\": {\n    \"leak\": {\"timeout\": \"hunter2literal\"}\n  }\n}"})
	_, err := workspace.Load(root)
	if err == nil {
		t.Fatal("a timeout of hunter2literal loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "hunter2literal") {
		t.Errorf("the error quotes the value: %s", msg)
	}
	if !strings.Contains(msg, "vx.workspace.json:3:") || !strings.Contains(msg, "tasks.leak.timeout: not a duration") {
		t.Errorf("the error does not name the field and its line: %s", msg)
	}
}

func TestTypeErrorNeverQuotesTheValue(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"vx.workspace.json": `{"workers": 123456.5}`})
	_, err := workspace.Load(root)
	if err == nil {
		t.Fatal("workers 123456.5 loaded")
	}
	if msg := err.Error(); strings.Contains(msg, "123456") || !strings.Contains(msg, "workers: expected a whole number, found number") {
		t.Errorf("error %q: want the field and the kind found, never the value", msg)
	}
}
