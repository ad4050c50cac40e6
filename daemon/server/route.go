package server

import (
	"net/http"
	"net/url"
)

// mcpFirst hands a request for /mcp straight to the handler mux has for
// that path, and everything else to mux. Every MCP message is a request
// for /mcp; matching it against the mux's patterns first cost each warm
// tool call a microsecond or two for nothing (the mux's "/mcp" takes any
// method, so the answer is the same). A path spelled with escapes still
// goes through the mux.
func mcpFirst(mux *http.ServeMux) http.Handler {
	mcp, pattern := mux.Handler(&http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/mcp"}})
	if pattern != "/mcp" {
		return mux // not mounted the way this shortcut assumes
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" && r.URL.RawPath == "" {
			r.Pattern = pattern
			mcp.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
