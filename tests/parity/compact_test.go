//go:build !windows

package parity_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// compactSub is how a compact description names each question it
// answers: what="tasks" (listTasks).
var compactSub = regexp.MustCompile(`what="([a-z]+)" \(([A-Za-z]+)\)`)

// TestCompactIsTheVerbs: under "mcp": {"tools": "compact"} every tool of
// the full catalog's table is reachable as a compact tool's "what", and
// answers what the same verb prints.
func TestCompactIsTheVerbs(t *testing.T) {
	root := workspace(t, "ws")
	cfg := filepath.Join(root, "vx.workspace.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	compact := strings.Replace(string(b), `"mcp": { "run": true }`, `"mcp": { "run": true, "tools": "compact" }`, 1)
	if compact == string(b) {
		t.Fatal("testdata/ws/vx.workspace.json no longer says \"mcp\": { \"run\": true }")
	}
	if err := os.WriteFile(cfg, []byte(compact), 0o644); err != nil {
		t.Fatal(err)
	}
	commit(t, root, "compact tools")
	addReferencePlugin(t, root)
	h := buildHistory(t, root)
	endpoint, token := startDaemon(t, root)
	cs := connect(t, endpoint, token, revStateless)

	type via struct{ tool, what string }
	reach := map[string]via{}
	for tl, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		for _, m := range compactSub.FindAllStringSubmatch(tl.Description, -1) {
			reach[m[2]] = via{tl.Name, m[1]}
		}
		if tl.Name == "tasks-of" {
			reach[tl.Name] = via{tl.Name, ""} // a plugin's verb is a tool of its own in both catalogs
		}
	}
	if len(reach) == 0 {
		t.Fatal("no compact tool names the questions it answers (what=\"…\" (tool))")
	}
	for _, r := range rows(h) {
		v, ok := reach[r.tool]
		if !ok {
			t.Errorf("%s is not reachable in compact mode", r.tool)
			continue
		}
		c := r
		c.tool = v.tool
		c.args = maps.Clone(r.args)
		if v.what != "" {
			c.args["what"] = v.what
		}
		t.Run(v.tool+"/"+r.name(), func(t *testing.T) { checkRow(t, cs, root, c) })
	}
}
