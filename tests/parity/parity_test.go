//go:build !windows

package parity_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/tests/internal/harness"
)

// hist is the history buildHistory leaves in the workspace.
type hist struct {
	failedRun string // build test --continue: app#test failed
	editRun   string // build after an edit of pkgs/lib/src/lib.txt
	deployRun string // app#deploy printed the secret (masked) and failed
}

// buildHistory locks the configuration, runs build and test (app#test
// fails, naming a source location), edits lib's input and commits it, and
// runs build again (lib#build re-runs for the file, app#build for its
// upstream), then app#deploy, which prints the secret and fails.
func buildHistory(t *testing.T, root string) hist {
	t.Helper()
	if r := run(t, root, vxBin, "lock"); r.Code != 0 {
		t.Fatalf("vx lock\n%s", r)
	}
	commit(t, root, "lock")
	var h hist
	h.failedRun = runID(t, root, 1, "build", "test", "--continue")
	harness.WriteFile(t, filepath.Join(root, "pkgs/lib/src/lib.txt"), "lib v2\n")
	commit(t, root, "edit lib")
	h.editRun = runID(t, root, 0, "build")
	h.deployRun = runID(t, root, 1, "deploy", "--filter", "app")
	return h
}

// runID runs `vx run ARGS --format json`, checks its exit code and
// returns the run's id.
func runID(t *testing.T, root string, code int, args ...string) string {
	t.Helper()
	r := run(t, root, vxBin, append(append([]string{"run"}, args...), "--format", "json")...)
	var s struct {
		RunID string `json:"runId"`
	}
	if r.Code != code || json.Unmarshal([]byte(r.Stdout), &s) != nil || s.RunID == "" {
		t.Fatalf("want exit %d and a run summary\n%s", code, r)
	}
	return s.RunID
}

// row is one tool call and the vx command line that must print the same
// JSON.
type row struct {
	tool string
	args map[string]any
	// verb is the vx command line, after "vx"; nil when no verb answers
	// the tool's question (noVerb says so and why).
	verb   []string
	vxd    bool // the verb is vxd's, not vx's
	noVerb string
	code   int // the verb's exit code
	// part names the member of the tool's answer the verb prints, when the
	// tool wraps the verb's document ("" = the whole answer).
	part string
	// ignore lists JSON paths (dot-separated, * for every element) that
	// differ between any two calls, each with why in a comment at the row.
	ignore []string
	// holds is a piece of the tool's answer (compact JSON) the history
	// must give it, so that a row never compares two empty answers.
	holds string
}

func (r row) name() string {
	b, _ := json.Marshal(r.args)
	if r.verb == nil {
		return r.tool + string(b)
	}
	prog := "vx"
	if r.vxd {
		prog = "vxd"
	}
	return r.tool + string(b) + " = " + prog + " " + strings.Join(r.verb, " ")
}

// rows is the table: every tool vxd lists has at least one row.
func rows(h hist) []row {
	return []row{
		{tool: "listTasks", args: map[string]any{}, verb: []string{"show", "--format", "json"}, holds: `"taskId":"app#test"`},
		{tool: "listTasks", args: map[string]any{"filter": "lib"}, verb: []string{"show", "--filter", "lib", "--format", "json"}},
		{tool: "listTasks", args: map[string]any{"filter": []any{"lib", "app"}}, verb: []string{"show", "--filter", "lib", "--filter", "app", "--format", "json"}},
		// vx show has no --project (vx show app is getConfig's project
		// view); a filter naming one project selects the same.
		{tool: "listTasks", args: map[string]any{"project": "app"}, verb: []string{"show", "--filter", "app", "--format", "json"}, holds: `"taskId":"app#deploy"`},
		// The edit commit changed lib: lib is affected, app as its dependent.
		{tool: "listTasks", args: map[string]any{"affected": "HEAD~1"}, verb: []string{"show", "--affected=HEAD~1", "--format", "json"}, holds: `"name":"app"`},
		{tool: "listTasks", args: map[string]any{"affected": "HEAD"}, verb: []string{"show", "--affected=HEAD", "--format", "json"}},
		{tool: "listTasks", args: map[string]any{"affected": true}, verb: []string{"show", "--affected", "--format", "json"}},
		{tool: "listTasks", args: map[string]any{"overlaps": true}, verb: []string{"show", "--overlaps", "--format", "json"}, holds: `"projects":[]`},
		{tool: "planTasks", args: map[string]any{"tasks": []any{"test"}, "affected": true}, verb: []string{"run", "test", "--affected", "--dry=json"}, part: "plan", ignore: dryStamp},
		{tool: "planTasks", args: map[string]any{"tasks": []any{"build"}, "affected": "HEAD~1"}, verb: []string{"run", "build", "--affected=HEAD~1", "--dry=json"},
			part: "plan", holds: `"affectedReason"`, ignore: dryStamp},
		{tool: "getConfig", args: map[string]any{"target": "app#build"}, verb: []string{"show", "app#build", "--format", "json"}, holds: `"dependsOn":["^build"]`},
		{tool: "getConfig", args: map[string]any{"target": "app#deploy"}, verb: []string{"show", "app#deploy", "--format", "json"}, holds: `"DEPLOY_TOKEN":"***"`},
		{tool: "getConfig", args: map[string]any{"target": "lib"}, verb: []string{"show", "lib", "--format", "json"}},
		{tool: "getConfig", args: map[string]any{"target": "test"}, verb: []string{"show", "test", "--format", "json"}},
		{tool: "getWorkspaceConfig", args: map[string]any{}, verb: []string{"config", "--format", "json"}, holds: `"text":"{`},
		{tool: "whyDidThisRerun", args: map[string]any{"taskId": "lib#build"}, verb: []string{"why", "lib#build", "--format", "json"}, holds: `"changed":["src/lib.txt"]`},
		{tool: "whyDidThisRerun", args: map[string]any{"taskId": "app#build", "runId": h.editRun}, verb: []string{"why", "app#build", "--run", h.editRun, "--format", "json"},
			holds: `"changed":["lib#build"]`},
		{tool: "whyDidThisRerun", args: map[string]any{"taskId": "app#test", "runId": h.failedRun[:8]}, verb: []string{"why", "app#test", "--run", h.failedRun[:8], "--format", "json"}},
		{tool: "getTaskLog", args: map[string]any{"taskId": "app#test"}, verb: []string{"last", "--log", "app#test", "--format", "json"}, holds: `undefined: frobnicate`},
		{tool: "getTaskLog", args: map[string]any{"taskId": "lib#build", "runId": h.editRun}, verb: []string{"last", "--log", "lib#build", "--run", h.editRun, "--format", "json"}},
		{tool: "getTaskLog", args: map[string]any{"taskId": "app#deploy"}, verb: []string{"last", "--log", "app#deploy", "--format", "json"}, holds: `with ***`},
		{tool: "getLastRun", args: map[string]any{}, verb: []string{"last", "--format", "json"}, holds: h.deployRun},
		{tool: "getLastRun", args: map[string]any{"runId": h.failedRun}, verb: []string{"last", "--run", h.failedRun, "--format", "json"}, holds: `"status":"failed"`},
		{tool: "getLastRun", args: map[string]any{"violations": true}, verb: []string{"last", "--violations", "--format", "json"}, holds: `"tasks":[]`},
		// planTasks answers {exitCode, plan, planId, expiresAt,
		// prerequisites}: vxd keeps the plan for runTasks {planId}; the
		// plan itself is what vx run --dry=json prints.
		{tool: "planTasks", args: map[string]any{"tasks": []any{"build"}}, verb: []string{"run", "build", "--dry=json"}, part: "plan", holds: `"cache":"hit"`, ignore: dryStamp},
		{tool: "planTasks", args: map[string]any{"tasks": []any{"test"}, "filter": "app"}, verb: []string{"run", "test", "--filter", "app", "--dry=json"}, part: "plan", ignore: dryStamp},
		// vx run has no --all: all: true is every task name of the
		// workspace, here build, deploy and test.
		{tool: "planTasks", args: map[string]any{"all": true}, verb: []string{"run", "build", "deploy", "test", "--dry=json"}, part: "plan", holds: `"taskId":"app#deploy"`, ignore: dryStamp},
		// vxd keeps a dry run as a plan: its answer adds planId and
		// expiresAt, which vx cache prune (no daemon's plan) has not.
		{tool: "pruneCache", args: map[string]any{"olderThan": "7d"}, verb: []string{"cache", "prune", "--older-than", "7d", "--dry-run", "--format", "json"}, ignore: prunePlan},
		{tool: "pruneCache", args: map[string]any{"maxSize": "1B", "dryRun": true}, verb: []string{"cache", "prune", "--max-size", "1B", "--dry-run", "--format", "json"},
			holds: `"reason":"maxSize"`, ignore: prunePlan},
		{tool: "checkLock", args: map[string]any{}, verb: []string{"lock", "--check", "--format", "json"}, holds: `"upToDate":true`},
		{tool: "searchDocs", args: map[string]any{"query": "cache key"}, verb: []string{"docs", "cache", "key", "--format", "json"}, holds: `Cache key components`},
		{tool: "searchDocs", args: map[string]any{"query": "mcp.run", "limit": 2}, verb: []string{"docs", "mcp.run", "--limit", "2", "--format", "json"}},
		{tool: "searchDocs", args: map[string]any{"query": "zzyzx-nowhere"}, verb: []string{"docs", "zzyzx-nowhere", "--format", "json"}},
		{tool: "searchDocs", args: map[string]any{"query": "cache", "limit": 51}, verb: []string{"docs", "cache", "--limit", "51", "--format", "json"}, holds: `50 applied`},
		{tool: "planInit", args: map[string]any{}, verb: []string{"init", "--dry", "--format", "json"}},
		{tool: "planInit", args: map[string]any{"mode": "force"}, verb: []string{"init", "--dry", "--force", "--format", "json"}},
		{tool: "getWorkspaceInfo", args: map[string]any{}, verb: []string{"info", "--format", "json"},
			ignore: daemonLive},
		{tool: "diagnose", args: map[string]any{}, verb: []string{"doctor", "--format", "json"}},
		// A plugin's read-only verb (addReferencePlugin): the tool's input
		// object and the command line's argument name the same project.
		{tool: "tasks-of", args: map[string]any{"project": "app"}, verb: []string{"tasks-of", "app", "--format", "json"}, holds: `"plugin":"reference"`},
		// vxd status is the daemon part of the workspace info (--json is
		// kept as an alias of --format json).
		{tool: "getWorkspaceInfo", args: map[string]any{}, verb: []string{"status", "--format", "json"}, vxd: true, part: "daemon", ignore: statusLive, holds: `"trigger":"start"`},
		{tool: "getWorkspaceInfo", args: map[string]any{}, verb: []string{"status", "--json"}, vxd: true, part: "daemon", ignore: statusLive},

		{tool: "getCacheStats", args: map[string]any{}, noVerb: "no verb prints cache statistics (vx cache status is the remote's live check, vx info a summary)"},
		{tool: "getRunHistory", args: map[string]any{}, noVerb: "no verb prints per-task statistics (vx last --list lists runs, not executions and p50s)"},
		{tool: "explainCacheKey", args: map[string]any{"taskId": "lib#build"}, noVerb: "no verb prints a cache entry's identity"},
		{tool: "getFailures", args: map[string]any{}, noVerb: "no verb prints a run's failures with their locations", holds: `with ***`},
		{tool: "getFailures", args: map[string]any{"runId": h.failedRun}, noVerb: "as above", holds: `"line":3`},
		{tool: "compareRuns", args: map[string]any{}, noVerb: "no verb compares two runs"},
		{tool: "runTrends", args: map[string]any{}, noVerb: "no verb prints activity buckets"},

		// Last: it adds a run to the history. Both run build with every
		// task a hit; the run's own id, times, durations and the command
		// line it records (runTasks records the equivalent
		// `run ... -- build`) differ between any two runs.
		{tool: "runTasks", args: map[string]any{"tasks": []any{"build"}}, verb: []string{"run", "build", "--format", "json"}, part: "summary",
			ignore: []string{"runId", "startedAt", "endedAt", "durationMs", "command", "tasks.*.durationMs"}},
	}
}

// daemonLive are the daemon's live figures in vx info, which move between
// any two asks: its heap and resident memory, its uptime, and the count
// and time of its MCP requests (requests the SDK client makes besides the
// tool call can land between the tool's answer and the verb's GET
// /status: seen in TestBrokenConfig, whose session lists no tools first).
var daemonLive = []string{"daemon.heapBytes", "daemon.rssBytes", "daemon.uptimeMs", "daemon.lastActivity", "daemon.requests"}

// dryStamp is what vx run --dry=json adds to the plan for vx run --plan
// (the selection, the prerequisites, when it was made and expires);
// planTasks keeps those beside the plan (planId, expiresAt,
// prerequisites) rather than in it.
var dryStamp = []string{"request", "prerequisites", "madeAt", "expiresAt"}

// prunePlan is what vxd adds to a pruneCache dry run: the plan kept.
var prunePlan = []string{"planId", "expiresAt"}

// statusLive are the same figures in vxd status.
var statusLive = []string{"heapBytes", "rssBytes", "uptimeMs", "lastActivity", "requests"}

// TestVerbJSONIsTheToolAnswer compares, for each row, the tool's
// structuredContent with what the verb prints under --format json, on
// the same workspace state.
func TestVerbJSONIsTheToolAnswer(t *testing.T) {
	root := workspace(t, "ws")
	addReferencePlugin(t, root)
	h := buildHistory(t, root)
	endpoint, token := startDaemon(t, root)
	// The same answer reaches every client: straight over HTTP in both
	// eras, and through the vx mcp shim.
	clients := []struct {
		name string
		cs   *mcp.ClientSession
	}{
		{"http " + revStateless, connect(t, endpoint, token, revStateless)},
		{"http " + revSession, connect(t, endpoint, token, revSession)},
		{"vx mcp", connectShim(t, root)},
	}
	cs := clients[0].cs

	table := rows(h)
	t.Run("every listed tool has a row", func(t *testing.T) {
		have := map[string]bool{}
		for _, r := range table {
			have[r.tool] = true
		}
		listed := listTools(t, cs)
		for _, name := range listed {
			if !have[name] {
				t.Errorf("tool %s has no row in the parity table (tests/parity): add its verb, or a noVerb row saying why there is none", name)
			}
		}
		for name := range have {
			if !slices.Contains(listed, name) {
				t.Errorf("the parity table has a row for %s, which tools/list does not list", name)
			}
		}
	})
	t.Run("a CLI-only operation is a verb, never a tool", func(t *testing.T) {
		listed := listTools(t, cs)
		n := 0
		for _, op := range ops.Operations() {
			if !op.CLIOnly {
				continue
			}
			n++
			if slices.Contains(listed, op.Name) {
				t.Errorf("tools/list lists %s, a person's act that no MCP client may perform", op.Name)
			}
		}
		if n == 0 {
			t.Error("no CLI-only operation declared (approvePlan should be)")
		}
		if r := run(t, root, vxBin, "approve", "--help"); r.Code != 0 || !strings.Contains(r.Stdout, "approve") {
			t.Errorf("vx approve --help\n%s", r)
		}
	})
	t.Run("resources", func(t *testing.T) {
		for _, c := range clients {
			t.Run(c.name, func(t *testing.T) { resourcesAreTheVerbs(t, c.cs, root) })
		}
	})
	t.Run("prompts", func(t *testing.T) {
		for _, c := range clients {
			t.Run(c.name, func(t *testing.T) { promptsQuoteTheTools(t, c.cs, h) })
		}
	})
	for _, r := range table {
		t.Run(r.name(), func(t *testing.T) {
			if r.verb == nil && r.noVerb == "" {
				t.Fatalf("row %s has neither a verb nor a reason for none", r.name())
			}
			for _, c := range clients {
				t.Run(c.name, func(t *testing.T) { checkRow(t, c.cs, root, r) })
			}
		})
	}
}

// checkRow calls the row's tool through cs, checks the answer holds what
// the row says and conforms to the tool's outputSchema, and compares it
// with the verb's output.
func checkRow(t *testing.T, cs *mcp.ClientSession, root string, r row) {
	t.Helper()
	got := callTool(t, cs, r.tool, r.args)
	if b, _ := json.Marshal(got); r.holds != "" && !strings.Contains(string(b), r.holds) {
		t.Fatalf("%s's answer does not hold %s, which the history should give it:\n%s", r.tool, r.holds, indent(got))
	}
	conforms(t, cs, r.tool, got)
	if r.verb == nil {
		return
	}
	if r.part != "" {
		m, ok := got.(map[string]any)
		if !ok || m[r.part] == nil {
			t.Fatalf("%s's answer has no %q member:\n%s", r.tool, r.part, indent(got))
		}
		got = m[r.part]
	}
	verbPrints(t, root, r, got, nil)
}

// verbPrints runs the row's verb in root and fails the test unless it
// exits with the row's code and prints got, the tool's answer, once the
// row's ignored paths are dropped from both and scrub (when set) has
// rewritten both.
func verbPrints(t *testing.T, root string, r row, got any, scrub func(any) any) {
	t.Helper()
	bin, prog := vxBin, "vx "
	if r.vxd {
		bin, prog = vxdBin, "vxd "
	}
	res := run(t, root, bin, r.verb...)
	if res.Code != r.code {
		t.Fatalf("want exit %d\n%s", r.code, res)
	}
	if strings.Contains(res.Stdout+res.Stderr, secret) {
		t.Errorf("%s%s printed the secret in clear:\n%s", prog, strings.Join(r.verb, " "), res)
	}
	want := decode(t, prog+strings.Join(r.verb, " "), []byte(res.Stdout))
	for _, p := range r.ignore {
		drop(got, strings.Split(p, "."))
		drop(want, strings.Split(p, "."))
	}
	if scrub != nil {
		got, want = scrub(got), scrub(want)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s%s and %s differ:\n%s", prog, strings.Join(r.verb, " "), r.tool, strings.Join(diff("", got, want), "\n"))
	}
}

// drop deletes the member at path from v (maps and arrays of decoded
// JSON); "*" walks every element or member.
func drop(v any, path []string) {
	if len(path) == 0 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if path[0] == "*" {
			for _, e := range x {
				drop(e, path[1:])
			}
			return
		}
		if len(path) == 1 {
			delete(x, path[0])
			return
		}
		drop(x[path[0]], path[1:])
	case []any:
		if path[0] == "*" {
			for _, e := range x {
				drop(e, path[1:])
			}
		}
	}
}

// diff lists the paths where the tool's answer (a) and the verb's (b)
// differ.
func diff(at string, a, b any) []string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var names []string
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		var out []string
		for _, k := range names {
			xv, xok := x[k]
			yv, yok := y[k]
			switch {
			case !xok:
				out = append(out, fmt.Sprintf("  %s.%s: only the verb has it: %s", at, k, short(yv)))
			case !yok:
				out = append(out, fmt.Sprintf("  %s.%s: only the tool has it: %s", at, k, short(xv)))
			default:
				out = append(out, diff(at+"."+k, xv, yv)...)
			}
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		var out []string
		for i := range x {
			out = append(out, diff(fmt.Sprintf("%s[%d]", at, i), x[i], y[i])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{fmt.Sprintf("  %s: tool %s, verb %s", at, short(a), short(b))}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func indent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
