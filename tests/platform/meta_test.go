//go:build !windows

package platform_test

import (
	"testing"

	"github.com/vzn/vx/tests/internal/metarules"
)

// TestMetaRules: the platform's /mcp gives each rule of a request's
// _meta the status and code vxd gives (metarules.Cases); its session era,
// a session per request, serves a request without the revision in _meta
// whatever else _meta holds.
func TestMetaRules(t *testing.T) {
	ts := seed(t)
	url := ts.p.srv.URL + "/mcp"
	t.Run("2026-07-28", func(t *testing.T) { metarules.Check(t, url, ts.acme) })
	t.Run("session era", func(t *testing.T) {
		for _, meta := range []string{"", `{}`, `{"io.modelcontextprotocol/clientCapabilities":"none"}`} {
			if r := metarules.Post(t, url, ts.acme, meta, "2025-06-18", ""); r.Status != 200 || r.Error != nil || len(r.Result) == 0 {
				t.Errorf("session-era request with _meta %s: want it served, got %d %s", meta, r.Status, r.Body)
			}
		}
	})
}
