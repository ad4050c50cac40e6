package httpapi

import (
	"net/http"
	"slices"
)

// PageAuth is how the daemon's status page authenticates: a login cookie
// holding a credential of its own, minted at login. It is not the bearer
// token, so a cookie that reaches another server (cookies ignore ports)
// gives no MCP access and runs nothing; and it opens only Routes.
type PageAuth struct {
	// Cookie is the cookie's name (one per daemon: it includes the port).
	Cookie string
	// Routes are the "METHOD /path" pairs the cookie opens, exactly.
	Routes []string
	// Valid reports whether a cookie value is a live page login.
	Valid func(value string) bool
	// Help, when set, answers a GET of the page itself (/) that carries
	// no credential the guard accepts, in place of the bare 401: a person
	// who opened the address learns how to log in. It must set the 401.
	Help http.HandlerFunc
}

// helps reports whether r is a browser opening the page without a
// credential, which p.Help answers.
func (p *PageAuth) helps(r *http.Request) bool {
	return p != nil && p.Help != nil && r.Method == http.MethodGet && r.URL.Path == "/"
}

// allows reports whether r carries a page login for one of the routes.
func (p *PageAuth) allows(r *http.Request, port int) bool {
	if p.Valid == nil || !slices.Contains(p.Routes, r.Method+" "+r.URL.Path) {
		return false
	}
	// A cookie counts only from the daemon's own page (or with no Origin
	// at all): another local page (127.0.0.1:5173) would send it too.
	if o := r.Header.Get("Origin"); o != "" && !OwnOrigin(o, port) {
		return false
	}
	c, err := r.Cookie(p.Cookie)
	return err == nil && c.Value != "" && p.Valid(c.Value)
}
