// Package pagekit is the page components vxd's status page and the
// platform's dashboard are both built from: a run's timeline (live, or
// from history), runs tables, and duration and trend charts with real
// axes. They are one script and one stylesheet, embedded and served by
// each page's server.
package pagekit

import (
	_ "embed"
	"net/http"
)

// Paths the components are served at.
const (
	ScriptPath = "/pagekit.js"
	StylePath  = "/pagekit.css"
)

//go:embed pagekit.js
var script []byte

//go:embed pagekit.css
var style []byte

// Handler serves ScriptPath and StylePath (mount it at both).
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		switch r.URL.Path {
		case ScriptPath:
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			body = script
		case StylePath:
			w.Header().Set("Content-Type", "text/css; charset=utf-8")
			body = style
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(body)
	})
}
