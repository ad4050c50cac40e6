//go:build !windows

package parity_test

import "testing"

// TestFreshWorkspace: before anything ran and before vx lock, the tools
// and the verbs still answer alike (the answers that say "nothing yet"),
// or refuse alike.
func TestFreshWorkspace(t *testing.T) {
	root := workspace(t, "ws")
	endpoint, token := startDaemon(t, root)
	cs := connect(t, endpoint, token, revStateless)
	for _, r := range []row{
		{tool: "listTasks", args: map[string]any{}, verb: []string{"show", "--format", "json"}},
		{tool: "getLastRun", args: map[string]any{}, verb: []string{"last", "--format", "json"}, holds: `"found":false`},
		{tool: "planTasks", args: map[string]any{"tasks": []any{"test"}}, verb: []string{"run", "test", "--dry=json"}, part: "plan", holds: `"cache":"miss"`, ignore: dryStamp},
		{tool: "pruneCache", args: map[string]any{"maxSize": "1B"}, verb: []string{"cache", "prune", "--max-size", "1B", "--dry-run", "--format", "json"}, ignore: prunePlan},
		{tool: "checkLock", args: map[string]any{}, verb: []string{"lock", "--check", "--format", "json"}, code: 1, holds: `"present":false`},
		{tool: "getWorkspaceInfo", args: map[string]any{}, verb: []string{"info", "--format", "json"}, ignore: daemonLive},
		{tool: "diagnose", args: map[string]any{}, verb: []string{"doctor", "--format", "json"}},
		{tool: "getCacheStats", args: map[string]any{}, noVerb: "as in the table", holds: `"entries":0`},
		{tool: "getFailures", args: map[string]any{}, noVerb: "as in the table"},
		{tool: "compareRuns", args: map[string]any{}, noVerb: "as in the table"},
	} {
		t.Run(r.name(), func(t *testing.T) { checkRow(t, cs, root, r) })
	}
	// A task with no execution yet has no log and nothing to compare.
	for _, r := range []refusalRow{
		{tool: "getTaskLog", args: map[string]any{"taskId": "app#test"}, verb: []string{"last", "--log", "app#test", "--format", "json"}, code: 2},
		{tool: "whyDidThisRerun", args: map[string]any{"taskId": "lib#build"}, verb: []string{"why", "lib#build", "--format", "json"}, code: 2},
	} {
		t.Run(r.tool+" refused", func(t *testing.T) { refusedAlike(t, cs, root, r) })
	}
}
