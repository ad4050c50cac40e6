//go:build !windows

package mcp_test

import (
	"encoding/json"
	"testing"
)

// TestVerbJSONIsTheToolAnswer: for every question verb that has a tool,
// `vx VERB --format json` prints exactly the tool's structured answer to
// the same question, because both fill one operation's input and print its
// output.
func TestVerbJSONIsTheToolAnswer(t *testing.T) {
	root := workspace(t, "hist")
	h := buildHistory(t, root)
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	for _, c := range []struct {
		name string
		verb []string
		tool string
		args map[string]any
	}{
		{"show", []string{"show"}, "listTasks", map[string]any{}},
		{"show --filter", []string{"show", "--filter", "lib"}, "listTasks", map[string]any{"filter": "lib"}},
		{"show TARGET", []string{"show", "lib#build"}, "getConfig", map[string]any{"target": "lib#build"}},
		{"why", []string{"why", "lib#build"}, "whyDidThisRerun", map[string]any{"taskId": "lib#build"}},
		{"why --run", []string{"why", "lib#build", "--run", h.firstRun}, "whyDidThisRerun", map[string]any{"taskId": "lib#build", "runId": h.firstRun}},
		{"last", []string{"last"}, "getLastRun", map[string]any{}},
		{"last --run", []string{"last", "--run", h.slowRun[:8]}, "getLastRun", map[string]any{"runId": h.slowRun[:8]}},
		{"last --log", []string{"last", "--log", "lib#build"}, "getTaskLog", map[string]any{"taskId": "lib#build"}},
		{"cache prune --dry-run", []string{"cache", "prune", "--dry-run", "--max-size", "1"}, "pruneCache", map[string]any{"maxSize": "1"}},
		{"docs", []string{"docs", "cache", "key", "--limit", "2"}, "searchDocs", map[string]any{"query": "cache key", "limit": 2}},
		{"lock --check", []string{"lock", "--check"}, "checkLock", map[string]any{}},
		{"init --dry", []string{"init", "--dry"}, "planInit", map[string]any{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, root, nil, vxBin, append(c.verb, "--format", "json")...)
			if r.Stdout == "" {
				t.Fatalf("vx %v printed nothing\n%s", c.verb, r)
			}
			var fromVerb any
			if err := json.Unmarshal([]byte(r.Stdout), &fromVerb); err != nil {
				t.Fatalf("vx %v --format json is not JSON: %v\n%s", c.verb, err, r)
			}
			a := callOK(t, cs, c.tool, c.args)
			var fromTool any
			a.structured(t, &fromTool)
			if m, ok := fromTool.(map[string]any); ok && c.tool == "pruneCache" {
				// vxd keeps a dry run as a plan; vx cache prune has no daemon's plan.
				delete(m, "planId")
				delete(m, "expiresAt")
			}
			if !jsonEqual(fromVerb, fromTool) {
				v, _ := json.Marshal(fromVerb)
				tl, _ := json.Marshal(fromTool)
				t.Errorf("vx %v --format json differs from %s %v\n--- verb:\n%s\n--- tool:\n%s", c.verb, c.tool, c.args, v, tl)
			}
		})
	}
}
