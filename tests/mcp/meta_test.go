//go:build !windows

package mcp_test

import (
	"testing"

	"github.com/vzn/vx/tests/internal/metarules"
)

// TestMetaRules: vxd's streamable HTTP endpoint gives each rule of a
// request's _meta its status and code (metarules.Cases). In a session
// (the 2025 era, where _meta carries no required field) a request without
// the revision in _meta is served whatever else _meta holds, and one
// naming a revision the session's header does not is -32020.
func TestMetaRules(t *testing.T) {
	root := workspace(t, "policy")
	endpoint, token, _ := startDaemon(t, root)
	t.Run("2026-07-28", func(t *testing.T) { metarules.Check(t, endpoint, token) })
	t.Run("session era", func(t *testing.T) {
		c := newRaw(endpoint, token)
		c.initialize(t)
		for _, meta := range []string{"", `{}`, `{"io.modelcontextprotocol/clientCapabilities":"none"}`, `{"progressToken":"p1"}`} {
			if r := metarules.Post(t, endpoint, token, meta, "2025-06-18", c.sid); r.Status != 200 || r.Error != nil || len(r.Result) == 0 {
				t.Errorf("session request with _meta %s: want it served, got %d %s", meta, r.Status, r.Body)
			}
		}
		r := metarules.Post(t, endpoint, token, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`, "2025-06-18", c.sid)
		if r.Status != 400 || r.Error == nil || r.Error.Code != -32020 {
			t.Errorf("session request naming 2026-07-28 in _meta under a 2025-06-18 header: want 400 -32020, got %d %s", r.Status, r.Body)
		}
	})
}
