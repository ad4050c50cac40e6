//go:build !windows

package platform_test

import (
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// get walks a decoded JSON value: get(m, "runs", 0, "runId").
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %v is not an object", path, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: %v has no element %d", path, v, k)
			}
			v = a[k]
		}
	}
	return v
}

func num(t *testing.T, v any, path ...any) float64 {
	t.Helper()
	f, ok := get(t, v, path...).(float64)
	if !ok {
		t.Fatalf("%v: %v is not a number", path, get(t, v, path...))
	}
	return f
}

func TestToolsAnswerHandComputedFigures(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL

	ws := call(t, base, ts.acme, "list_workspaces", nil).Struct
	if n := len(get(t, ws, "workspaces").([]any)); n != 2 {
		t.Fatalf("acme has 2 workspaces, got %d: %v", n, ws)
	}
	if get(t, ws, "workspaces", 0, "slug") != "web" || num(t, ws, "workspaces", 0, "runCount") != 2 || get(t, ws, "workspaces", 1, "slug") != "api" {
		t.Fatalf("list_workspaces: web (2 runs) then api: %v", ws)
	}

	runs := call(t, base, ts.acme, "list_runs", nil).Struct
	if get(t, runs, "workspace", "slug") != "web" || num(t, runs, "limit") != 50 {
		t.Fatalf("list_runs defaults to web and limit 50: %v", runs)
	}
	if get(t, runs, "runs", 0, "runId") != "a2a2a2a2a2a2" || get(t, runs, "runs", 1, "runId") != "a1a1a1a1a1a1" || len(get(t, runs, "runs").([]any)) != 2 {
		t.Fatalf("list_runs newest first: %v", runs)
	}
	r2 := get(t, runs, "runs", 0)
	if get(t, r2, "ci") != true || get(t, r2, "gitBranch") != "feature" || num(t, r2, "failed") != 1 || num(t, r2, "hits") != 1 ||
		num(t, r2, "remoteHits") != 1 || num(t, r2, "localHits") != 0 || num(t, r2, "tasks") != 3 || num(t, r2, "durationMs") != 3000 {
		t.Fatalf("run a2 header: %v", r2)
	}

	one := call(t, base, ts.acme, "get_run", map[string]any{"runId": "a2a2a2"}).Struct
	if get(t, one, "found") != true || get(t, one, "run", "runId") != "a2a2a2a2a2a2" || len(get(t, one, "tasks").([]any)) != 3 {
		t.Fatalf("get_run by prefix: %v", one)
	}
	var lib map[string]any
	for _, x := range get(t, one, "tasks").([]any) {
		if x.(map[string]any)["taskId"] == "lib#build" {
			lib = x.(map[string]any)
		}
	}
	if lib["status"] != "failed" || lib["exitCode"] != float64(1) || lib["reason"] != "exit 1" || lib["key"] != k5 {
		t.Fatalf("get_run lib#build: %v", lib)
	}
	if nf := call(t, base, ts.acme, "get_run", map[string]any{"runId": "ffffffffffff"}).Struct; get(t, nf, "found") != false {
		t.Fatalf("unknown run: %v", nf)
	}

	tr := call(t, base, ts.acme, "run_trends", nil).Struct
	if get(t, tr, "bucket") != "hour" || len(get(t, tr, "buckets").([]any)) != 2 {
		t.Fatalf("run_trends: %v", tr)
	}
	newest := get(t, tr, "buckets", 0)
	if s, _ := time.Parse(time.RFC3339, get(t, newest, "start").(string)); !s.Equal(T0.Add(time.Hour).Truncate(time.Hour)) {
		t.Fatalf("newest bucket starts %v, want %v", s, T0.Add(time.Hour).Truncate(time.Hour))
	}
	if num(t, newest, "runs") != 1 || num(t, newest, "failedRuns") != 1 || num(t, newest, "executions") != 3 || num(t, newest, "hits") != 1 || num(t, newest, "remoteHits") != 1 {
		t.Fatalf("newest bucket: %v", newest)
	}
	if day := call(t, base, ts.acme, "run_trends", map[string]any{"bucket": "day"}).Struct; num(t, get(t, day, "buckets").([]any)[0], "runs")+0 < 1 {
		t.Fatalf("day buckets: %v", day)
	}

	cs := call(t, base, ts.acme, "cache_stats", nil).Struct
	want := map[string]float64{"entries": 3, "entriesSized": 2, "bytes": 1200, "runs24h": 2, "executions24h": 6, "hits24h": 2,
		"localHits24h": 1, "remoteHits24h": 1, "localHits": 1, "remoteHits": 1}
	for k, v := range want {
		if num(t, cs, k) != v {
			t.Errorf("cache_stats %s = %v, want %v (%v)", k, num(t, cs, k), v, cs)
		}
	}
	if math.Abs(num(t, cs, "hitRate24h")-2.0/6) > 1e-9 {
		t.Errorf("hitRate24h = %v, want 1/3", num(t, cs, "hitRate24h"))
	}

	why := call(t, base, ts.acme, "why_did_rerun", map[string]any{"runId": "a2a2a2a2a2a2", "taskId": "app#build"}).Struct
	if get(t, why, "changed") != true || get(t, why, "previousRunId") != "a1a1a1a1a1a1" || get(t, why, "previousKey") != k1 || get(t, why, "reran") != true {
		t.Fatalf("why_did_rerun: %v", why)
	}
	if !reflect.DeepEqual(get(t, why, "diff", "files"), map[string]any{"added": []any{"src/b.ts"}, "removed": []any{}, "changed": []any{"src/a.ts"}}) {
		t.Errorf("files diff: %v", get(t, why, "diff", "files"))
	}
	if !reflect.DeepEqual(get(t, why, "diff", "definition"), []any{map[string]any{"name": "command", "before": "tsc", "after": "tsc -b"}}) {
		t.Errorf("definition diff: %v", get(t, why, "diff", "definition"))
	}
	if !reflect.DeepEqual(get(t, why, "diff", "upstream", "changed"), []any{"lib#build"}) {
		t.Errorf("upstream diff: %v", get(t, why, "diff", "upstream"))
	}
	first := call(t, base, ts.acme, "why_did_rerun", map[string]any{"runId": "a1a1a1a1a1a1", "taskId": "app#build"}).Struct
	if get(t, first, "firstRun") != true || get(t, first, "changed") != false {
		t.Fatalf("first run: %v", first)
	}

	cmp := call(t, base, ts.acme, "compare_runs", map[string]any{"runId": "a2a2a2a2a2a2"}).Struct
	if get(t, cmp, "previousRunId") != "a1a1a1a1a1a1" {
		t.Fatalf("compare_runs: %v", cmp)
	}
	// A run's duration is its wall time, the one list_runs answers (a1:
	// 2000 ms, a2: 3000 ms), not the sum of its tasks' (155, 130).
	tot := map[string]float64{"durationMsBefore": 2000, "durationMsAfter": 3000, "durationDeltaMs": 1000, "keysChanged": 2, "statusChanged": 1,
		"added": 0, "removed": 0, "hitsBefore": 1, "hitsAfter": 1}
	for k, v := range tot {
		if num(t, cmp, "totals", k) != v {
			t.Errorf("compare totals %s = %v, want %v", k, num(t, cmp, "totals", k), v)
		}
	}
	if num(t, cmp, "totals", "durationMsAfter") != num(t, runs, "runs", 0, "durationMs") || num(t, cmp, "totals", "durationMsBefore") != num(t, runs, "runs", 1, "durationMs") {
		t.Errorf("compare_runs totals %v disagree with list_runs' durations %v, %v", get(t, cmp, "totals"), num(t, runs, "runs", 0, "durationMs"), num(t, runs, "runs", 1, "durationMs"))
	}
	if get(t, cmp, "tasks", 1, "taskId") != "app#test" || get(t, cmp, "tasks", 1, "cacheAfter") != "hit" || get(t, cmp, "tasks", 1, "keyChanged") != false {
		t.Errorf("compare app#test: %v", get(t, cmp, "tasks", 1))
	}

	// The /v1 routes serve the same answers.
	for path, tool := range map[string]struct {
		name string
		args map[string]any
	}{
		"/v1/workspaces":                               {"list_workspaces", nil},
		"/v1/runs?limit=1":                             {"list_runs", map[string]any{"limit": 1}},
		"/v1/runs/a2a2a2a2a2a2":                        {"get_run", map[string]any{"runId": "a2a2a2a2a2a2"}},
		"/v1/runs/a2a2a2a2a2a2/compare":                {"compare_runs", map[string]any{"runId": "a2a2a2a2a2a2"}},
		"/v1/runs/a2a2a2a2a2a2/why?taskId=app%23build": {"why_did_rerun", map[string]any{"runId": "a2a2a2a2a2a2", "taskId": "app#build"}},
		"/v1/trends?bucket=day":                        {"run_trends", map[string]any{"bucket": "day"}},
		"/v1/cache?workspace=api":                      {"cache_stats", map[string]any{"workspace": "api"}},
	} {
		r := do(t, "GET", base+path, ts.acme, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		viaMCP := call(t, base, ts.acme, tool.name, tool.args).text()
		var a, b any
		_ = json.Unmarshal(r.body, &a)
		_ = json.Unmarshal([]byte(viaMCP), &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("GET %s differs from %s:\n%s\n%s", path, tool.name, r.body, viaMCP)
		}
	}
}

func TestArgumentsRefusedOrClamped(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	for _, tc := range []struct {
		name, tool string
		args       any
		want       string // in the isError text
	}{
		{"limit string", "list_runs", map[string]any{"limit": "10"}, `"limit"`},
		{"limit null", "list_runs", map[string]any{"limit": nil}, `"limit"`},
		{"limit array", "list_runs", map[string]any{"limit": []int{1}}, `"limit"`},
		{"limit non-finite", "run_trends", json.RawMessage(`{"limit": 1e999}`), `"limit"`},
		{"bucket enum", "run_trends", map[string]any{"bucket": "week"}, `"bucket"`},
		{"bucket type", "run_trends", map[string]any{"bucket": 1}, `"bucket"`},
		{"unknown key", "list_runs", map[string]any{"limt": 5}, `"limt"`},
		{"taskId half", "why_did_rerun", map[string]any{"runId": "a2a2a2a2a2a2", "taskId": "app"}, `"taskId"`},
		{"taskId other half", "why_did_rerun", map[string]any{"runId": "a2a2a2a2a2a2", "taskId": "#build"}, `"taskId"`},
		{"missing runId", "get_run", map[string]any{}, `"runId"`},
		{"missing taskId", "why_did_rerun", map[string]any{"runId": "a2a2a2a2a2a2"}, `"taskId"`},
		{"workspace type", "cache_stats", map[string]any{"workspace": 3}, `"workspace"`},
		{"unknown workspace", "list_runs", map[string]any{"workspace": "nope"}, `unknown workspace "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, rpcErr := callRaw(t, base, ts.acme, tc.tool, tc.args)
			if rpcErr != nil {
				t.Fatalf("want an isError result, got JSON-RPC error %v", rpcErr)
			}
			if !res.IsError || !strings.Contains(res.text(), tc.want) {
				t.Fatalf("want isError naming %s, got %+v", tc.want, res)
			}
		})
	}
	for _, tc := range []struct {
		tool  string
		limit any
		want  float64
	}{{"list_runs", 10000, 500}, {"list_runs", 0, 1}, {"list_runs", 2.6, 3}, {"run_trends", 5000, 1000}, {"run_trends", -3, 1}} {
		res := call(t, base, ts.acme, tc.tool, map[string]any{"limit": tc.limit})
		if res.IsError || num(t, res.Struct, "limit") != tc.want {
			t.Fatalf("%s limit %v: want clamped to %v, got %+v", tc.tool, tc.limit, tc.want, res)
		}
		if tc.want != 3 && !strings.Contains(res.Struct["note"].(string), "limit") {
			t.Fatalf("%s limit %v: the answer does not say the limit applied: %v", tc.tool, tc.limit, res.Struct)
		}
	}
	if _, rpcErr := callRaw(t, base, ts.acme, "no_such_tool", map[string]any{}); rpcErr == nil || !strings.Contains(rpcErr["message"].(string), "no_such_tool") {
		t.Fatalf("unknown tool: want a JSON-RPC error naming it, got %v", rpcErr)
	}
	if r := do(t, "GET", base+"/v1/runs?limit=ten", ts.acme, nil); r.status != 400 || !strings.Contains(r.json(t)["error"].(string), `"limit"`) {
		t.Fatalf("GET ?limit=ten: %d %s", r.status, r.body)
	}
}
