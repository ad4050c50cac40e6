package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/pagekit"
	"github.com/vzn/vx/protocol/proof"
	"github.com/vzn/vx/protocol/wire"
)

// mcpFirst hands a request for /mcp straight to the handler mux has for
// that path, and everything else to mux. Every MCP message is a request
// for /mcp; matching it against the mux's patterns first cost each warm
// tool call a microsecond or two for nothing (the mux's "/mcp" takes any
// method, so the answer is the same). A path spelled with escapes still
// goes through the mux.
func mcpFirst(mux *http.ServeMux) http.Handler {
	mcp, pattern := mux.Handler(&http.Request{Method: http.MethodPost, URL: &url.URL{Path: wire.MCPPath}})
	if pattern != wire.MCPPath {
		return mux // not mounted the way this shortcut assumes
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wire.MCPPath && r.URL.RawPath == "" {
			r.Pattern = pattern
			mcp.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// route is one of vxd's endpoints: its ServeMux pattern, its handler, and
// whether a page login (the status page's cookie) opens it.
type route struct {
	pattern string
	handler http.Handler
	page    bool
}

// routes is vxd's one route table: newMux serves it, and pageRoutes
// derives from it what a page login opens. /hello, /status, /shutdown
// (which calls cancel) and changes (the journal's answer) are proved to a
// client that sends a nonce. The page's routes are the page, its shared
// script and style, and what it reads: never /mcp, /status or /shutdown,
// so the login cookie runs nothing.
func (d *daemon) routes(cancel context.CancelFunc, changes http.Handler) []route {
	shutdown := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		d.log.Info().Msg("stop requested")
		go cancel()
	}
	return []route{
		{pattern: wire.MCPPath, handler: httpapi.NewMCPHandler(d.mcp, &httpapi.MCPOptions{Logger: d.log, Streams: d.streams})},
		{pattern: "GET " + proof.HelloPath, handler: d.proved(handleHello)},
		{pattern: "GET " + wire.StatusPath, handler: d.proved(d.handleStatus)},
		{pattern: "POST " + wire.ShutdownPath, handler: d.proved(shutdown)},
		{pattern: "GET " + wire.ChangesPath, handler: changes},
		{pattern: "GET " + wire.EventsPath, handler: http.HandlerFunc(d.handleEvents), page: true},
		{pattern: "GET /{$}", handler: http.HandlerFunc(servePage), page: true},
		// The page components it shares with the platform's dashboard.
		{pattern: "GET " + pagekit.ScriptPath, handler: pagekit.Handler(), page: true},
		{pattern: "GET " + pagekit.StylePath, handler: pagekit.Handler(), page: true},
		{pattern: "GET " + pageSummaryPath, handler: http.HandlerFunc(d.serveSummary), page: true},
		{pattern: "GET " + pageApprovalsPath, handler: http.HandlerFunc(d.serveApprovals), page: true},
	}
}

// newMux serves routes.
func newMux(routes []route) *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.Handle(rt.pattern, rt.handler)
	}
	return mux
}

// pageRoutes are the "METHOD /path" pairs of the routes a page login
// opens, as httpapi.PageAuth matches them ("GET /{$}" is "GET /").
func pageRoutes(routes []route) []string {
	var out []string
	for _, rt := range routes {
		if rt.page {
			out = append(out, strings.TrimSuffix(rt.pattern, "{$}"))
		}
	}
	return out
}
