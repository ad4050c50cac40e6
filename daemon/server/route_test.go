package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// mcpFirst answers as the mux would: /mcp by the mux's handler for it,
// with its pattern, anything else (another route, an unknown path, /mcp
// spelled with escapes or with a trailing slash) through the mux.
func TestMCPFirstRoutesAsTheMux(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("mcp " + r.Method + " " + r.Pattern)) })
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("status")) })
	h := mcpFirst(mux)
	for _, c := range []struct{ method, target, want string }{
		{"POST", "/mcp", "mcp POST /mcp"},
		{"GET", "/mcp", "mcp GET /mcp"},
		{"DELETE", "/mcp?x=1", "mcp DELETE /mcp"},
		{"POST", "/%6Dcp", "mcp POST /mcp"},
		{"GET", "/status", "status"},
		{"POST", "/mcp/", "404 page not found\n"},
		{"GET", "/nothing", "404 page not found\n"},
	} {
		for _, handler := range []http.Handler{h, mux} {
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, httptest.NewRequest(c.method, c.target, nil))
			if got := rec.Body.String(); got != c.want {
				t.Errorf("%s %s: answered %q, want %q", c.method, c.target, got, c.want)
			}
		}
	}
}
