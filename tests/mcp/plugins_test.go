//go:build !windows

package mcp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pluginWorkspace is testdata/plugins with the repository's reference
// plugin as tools/ref.mjs; it skips without node (fails under CI).
func pluginWorkspace(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: the plugin tests run the Node reference plugin")
	}
	root := workspace(t, "plugins")
	ref, err := os.ReadFile(filepath.Join("..", "..", "examples", "plugins", "vx-plugin-reference.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tools", "ref.mjs"), ref, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestPluginVerbsOnTheCommandLine: vx help lists plugin verbs under
// "Plugin commands", vx VERB runs one, a verb named like vx's own is
// refused and shown in vx info, and a warm vx run starts no plugin.
func TestPluginVerbsOnTheCommandLine(t *testing.T) {
	root := pluginWorkspace(t)
	r := run(t, root, nil, vxBin, "help")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Plugin commands:") || !strings.Contains(r.Stdout, "tasks-of") || !strings.Contains(r.Stdout, "hello") {
		t.Fatalf("vx help\n%s", r)
	}
	if strings.Contains(r.Stdout, "not vx run") {
		t.Fatalf("a plugin's \"run\" is listed\n%s", r)
	}
	r = run(t, root, nil, vxBin, "tasks-of", "a")
	if r.Code != 0 || !strings.Contains(r.Stdout, "a#ref\techo ref a > out.txt\t(reference)") {
		t.Fatalf("vx tasks-of a\n%s", r)
	}
	r = run(t, root, nil, vxBin, "info", "--format", "json")
	var info struct {
		Plugins []struct {
			Plugin, Name, Error string
			Tasks               int
		} `json:"plugins"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &info); err != nil || len(info.Plugins) != 2 {
		t.Fatalf("vx info: %v\n%s", err, r)
	}
	if p := info.Plugins[1]; p.Name != "shadow" || !strings.Contains(p.Error, `command "run" is vx's own verb`) {
		t.Fatalf("the shadowing verb was not refused: %+v", p)
	}
	if p := info.Plugins[0]; p.Name != "reference" || p.Tasks != 1 || p.Error != "" {
		t.Fatalf("reference plugin: %+v", p)
	}
	before := readLog(t, root)
	if s := vxRun(t, root, nil, 0, "ref"); len(s.Tasks) != 1 || s.Tasks[0].Cache != "miss" {
		t.Fatalf("first run: %+v", s)
	}
	if s := vxRun(t, root, nil, 0, "ref"); len(s.Tasks) != 1 || s.Tasks[0].Cache != "hit" {
		t.Fatalf("second run: %+v", s)
	}
	if after := readLog(t, root); after != before {
		t.Fatalf("warm vx runs started the plugin: log went from %q to %q", before, after)
	}
}

func readLog(t *testing.T, root string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(root, "starts.log"))
	return string(b)
}

// TestReadOnlyPluginVerbIsATool: a verb declared readOnly with an
// inputSchema is a tool with that schema, a read-only annotation and the
// same argument checks; other verbs and runPluginCommand are not tools;
// vxd re-infers when a matched file changes.
func TestReadOnlyPluginVerbIsATool(t *testing.T) {
	root := pluginWorkspace(t)
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	tools := map[string]*mcp.Tool{}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	tl, ok := tools["tasks-of"]
	if !ok {
		t.Fatalf("tasks-of is not a tool: %v", keys(tools))
	}
	if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
		t.Fatalf("tasks-of annotations: %+v", tl.Annotations)
	}
	schema, _ := json.Marshal(tl.InputSchema)
	if !strings.Contains(string(schema), `"project"`) {
		t.Fatalf("tasks-of schema: %s", schema)
	}
	for _, not := range []string{"hello", "run-plugin-command", "runPluginCommand"} {
		if _, ok := tools[not]; ok {
			t.Errorf("%s is a tool", not)
		}
	}
	a := callOK(t, cs, "tasks-of", map[string]any{"project": "a"})
	if !strings.Contains(a.text, `"a#ref`) && !strings.Contains(a.text, `"name":"ref"`) {
		t.Fatalf("tasks-of a: %s", a.text)
	}
	for _, bad := range []map[string]any{{}, {"project": 1}, {"project": "a", "extra": true}} {
		if a := call(t, cs, "tasks-of", bad); !a.res.IsError {
			t.Errorf("tasks-of %v was not refused: %s", bad, a.text)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "packages/a/vx-ref.json"), []byte(`{"command":"echo edited"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := callOK(t, cs, "getConfig", map[string]any{"target": "a#ref"})
		if strings.Contains(a.text, "echo edited") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("vxd did not re-infer after the edit: %s", a.text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
