//go:build !windows

package parity_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// remoteServer answers the two requests a remote cache check makes, GET
// /v8/artifacts/status and HEAD /v8/artifacts/:hash, for the bearer token
// tok; it counts the checks it answered.
func remoteServer(t *testing.T, tok string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var checks atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+tok {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v8/artifacts/status":
			checks.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":"enabled"}`))
		case r.Method == http.MethodHead && strings.HasPrefix(r.URL.Path, "/v8/artifacts/"):
			w.WriteHeader(http.StatusNotFound)
		default:
			http.Error(w, "not found", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &checks
}

// TestRemoteCheckIsTheToolAnswer: with a remote cache configured,
// getCacheStats {checkRemote: true} carries in remote what vx cache status
// --format json prints; an unreachable remote (vx cache status exits 1)
// the same.
func TestRemoteCheckIsTheToolAnswer(t *testing.T) {
	const tok = "parity-remote-token"
	srv, checks := remoteServer(t, tok)
	for _, tc := range []struct {
		name, url string
		code      int
		holds     string
	}{
		{"reachable", srv.URL, 0, `"authorized":true`},
		{"unreachable", "http://127.0.0.1:1", 1, `"reachable":false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace(t, "ws")
			withEnv(t, root, "VX_REMOTE_CACHE_URL="+tc.url, "VX_REMOTE_CACHE_TEAM=parity", "VX_REMOTE_CACHE_TOKEN="+tok)
			endpoint, token := startDaemon(t, root)
			cs := connect(t, endpoint, token, revStateless)
			before := checks.Load()
			ans := callTool(t, cs, "getCacheStats", map[string]any{"checkRemote": true})
			got, _ := ans.(map[string]any)["remote"].(map[string]any)
			if got == nil {
				t.Fatalf("getCacheStats {checkRemote: true} has no remote:\n%s", indent(ans))
			}
			if b := short(got); !strings.Contains(b, tc.holds) || strings.Contains(b, tok) {
				t.Fatalf("the remote check does not hold %s (or names the token):\n%s", tc.holds, indent(got))
			}
			// The round trip is timed afresh by every check.
			verbPrints(t, root, row{tool: "getCacheStats", verb: []string{"cache", "status", "--format", "json"}, code: tc.code, ignore: []string{"rttMs"}}, got, nil)
			if n := checks.Load() - before; tc.code == 0 && n != 2 {
				t.Errorf("the server answered %d status checks, want 2 (the tool's and the verb's): neither may answer from a memo", n)
			}

			// vx info and vx doctor say what they know of the remote too.
			for _, r := range []row{
				{tool: "getWorkspaceInfo", verb: []string{"info", "--format", "json"}, ignore: daemonLive},
				{tool: "diagnose", verb: []string{"doctor", "--format", "json"}, code: tc.code},
			} {
				// The remote check's detail names its round trip, timed
				// afresh by every check: "reachable (3 ms)".
				verbPrints(t, root, r, callTool(t, cs, r.tool, map[string]any{}), scrubRTT)
			}
		})
	}
}

var rttText = regexp.MustCompile(`\(\d+ ms\)`)

// scrubRTT replaces every "(N ms)" in the strings of v with "(… ms)".
func scrubRTT(v any) any {
	switch x := v.(type) {
	case string:
		return rttText.ReplaceAllString(x, "(… ms)")
	case map[string]any:
		for k, e := range x {
			x[k] = scrubRTT(e)
		}
	case []any:
		for i, e := range x {
			x[i] = scrubRTT(e)
		}
	}
	return v
}
