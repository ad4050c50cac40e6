//go:build !windows

package mcp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestCompactCatalog: mcp.tools "compact" lists at most ten workflow
// tools, each answering through the full catalog's operations; "full"
// (the default) lists the full catalog.
func TestCompactCatalog(t *testing.T) {
	root := workspace(t, "policy")
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	full := toolNames(t, cs)
	for _, name := range []string{"listTasks", "getConfig", "runTasks", "getFailures", "searchDocs"} {
		if _, ok := full[name]; !ok {
			t.Errorf("the full catalog lacks %s", name)
		}
	}
	if _, ok := full["inspect"]; ok {
		t.Error("the full catalog lists a compact tool")
	}

	setRunPolicy(t, root, `,"mcp":{"tools":"compact"}`)
	var names []string
	harness.WaitFor(t, 10*time.Second, "the compact catalog", func() bool {
		names = names[:0]
		for n := range toolNames(t, cs) {
			names = append(names, n)
		}
		return slices.Contains(names, "inspect")
	})
	slices.Sort(names)
	if len(names) > 10 || strings.Join(names, " ") != "cache docs doctor failures history inspect plan run why" {
		t.Errorf("compact catalog: %v", names)
	}

	var show struct {
		Projects []struct {
			Name string `json:"name"`
		} `json:"projects"`
	}
	callOK(t, cs, "inspect", map[string]any{}).structured(t, &show)
	if len(show.Projects) != 2 {
		t.Errorf("inspect (tasks) answered %+v", show)
	}
	callOK(t, cs, "inspect", map[string]any{"what": "config", "target": "one#test"})
	callOK(t, cs, "inspect", map[string]any{"what": "workspace"})
	callRefused(t, cs, "inspect", map[string]any{"what": "nope"}, `argument "what"`)
	callRefused(t, cs, "inspect", map[string]any{"what": "tasks", "target": "one#test"}, "target")

	p := struct {
		PlanID string `json:"planId"`
	}{}
	callOK(t, cs, "plan", map[string]any{"tasks": []string{"lint"}}).structured(t, &p)
	var out runTasksOut
	callOK(t, cs, "run", map[string]any{"planId": p.PlanID}).structured(t, &out)
	if strings.Join(out.ids(), " ") != "one#lint two#lint" {
		t.Errorf("run {planId} ran %v", out.ids())
	}
	callOK(t, cs, "history", map[string]any{"what": "last"})
	callOK(t, cs, "history", map[string]any{})
	callOK(t, cs, "failures", map[string]any{"what": "log", "taskId": "one#lint"})
	callOK(t, cs, "why", map[string]any{"taskId": "one#lint"})
	callOK(t, cs, "cache", map[string]any{"what": "stats"})
	callOK(t, cs, "cache", map[string]any{"what": "key", "taskId": "one#lint"})
	callOK(t, cs, "docs", map[string]any{"query": "cache key"})
	callOK(t, cs, "doctor", map[string]any{})

	// mcp.run false: the run tool leaves the compact catalog too.
	setRunPolicy(t, root, `,"mcp":{"tools":"compact","run":false}`)
	harness.WaitFor(t, 10*time.Second, "run to leave the compact catalog", func() bool {
		_, ok := toolNames(t, cs)["run"]
		return !ok
	})
}
