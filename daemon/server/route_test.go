package server

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/proof"
	"github.com/vzn/vx/protocol/wire"
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

// What a page login opens is derived from the route table: each page
// route is one the mux serves at exactly that method and path (so the
// guard's exact match and the mux agree, "GET /" included), and none of
// the others (/mcp, /hello, /status, /shutdown, changes) is among them.
func TestPageRoutesComeFromTheTable(t *testing.T) {
	d := &daemon{mcp: mcpserver.New(&mcpserver.Options{Name: "t", Version: "1"})}
	defer d.mcp.Close()
	routes := d.routes(func() {}, http.NotFoundHandler())
	mux := newMux(routes)
	page := pageRoutes(routes)
	for _, want := range []string{"GET /", "GET " + wire.EventsPath, "GET " + pageSummaryPath, "GET " + pageApprovalsPath} {
		if !slices.Contains(page, want) {
			t.Errorf("a page login does not open %q: %q", want, page)
		}
	}
	for _, pr := range page {
		method, path, _ := strings.Cut(pr, " ")
		if _, pattern := mux.Handler(httptest.NewRequest(method, path, nil)); pattern == "" {
			t.Errorf("page route %q is not served", pr)
		}
	}
	for _, rt := range routes {
		if !rt.page && slices.Contains(page, rt.pattern) {
			t.Errorf("a page login opens %q", rt.pattern)
		}
	}
	for _, never := range []string{wire.MCPPath, proof.HelloPath, wire.StatusPath, wire.ShutdownPath, wire.ChangesPath} {
		for _, pr := range page {
			if strings.HasSuffix(pr, " "+never) {
				t.Errorf("a page login opens %q", pr)
			}
		}
	}
}
