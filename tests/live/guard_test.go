//go:build !windows

package live_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/vzn/vx/protocol/wire"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       20 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// get sends GET path with the given headers (and Host, when set) and
// returns the response with its body read.
func get(t *testing.T, d *vxd, path, host string, h http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, d.base()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if host != "" {
		req.Host = host
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// dialStatus tries the websocket with the given headers and returns the
// HTTP status of the handshake (101 when it was accepted).
func dialStatus(t *testing.T, d *vxd, h http.Header) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, d.eventsURL(), &websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		c.CloseNow()
		return http.StatusSwitchingProtocols
	}
	if resp == nil {
		t.Fatalf("dialing %s: %v", d.eventsURL(), err)
	}
	return resp.StatusCode
}

func TestGuard(t *testing.T) {
	root := demo(t)
	d := startDaemon(t, root)

	// Log in once with ?token= and keep the cookie it sets.
	resp, body := get(t, d, "/?token="+d.token, "", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("/?token=RIGHT: %d Location %q, want 303 to /\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	var cookie *http.Cookie
	cookieName := wire.PageCookieName(d.port)
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("/?token=RIGHT set no %s cookie: %q", cookieName, resp.Header.Values("Set-Cookie"))
	}
	if cookie.Value == d.token || strings.Contains(cookie.Value, d.token) {
		t.Fatalf("the page's login cookie holds the bearer token: %q", resp.Header.Values("Set-Cookie"))
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie %q: HttpOnly %v SameSite %v, want HttpOnly and SameSite=Strict", resp.Header.Values("Set-Cookie"), cookie.HttpOnly, cookie.SameSite)
	}
	withCookie := http.Header{"Cookie": {(&http.Cookie{Name: cookie.Name, Value: cookie.Value}).String()}}
	with := func(h http.Header, k, v string) http.Header {
		out := h.Clone()
		if out == nil {
			out = http.Header{}
		}
		out.Set(k, v)
		return out
	}
	bearer := bearerHeader(d.token)
	evilHost := "evil.example:" + strconv.Itoa(d.port)

	for _, tc := range []struct {
		name   string
		path   string
		host   string
		h      http.Header
		want   int
		ctype  string // Content-Type prefix of a 200
		origin string // Access-Control-Allow-Origin wanted back
	}{
		{name: "page without token or cookie", path: "/", want: 401},
		{name: "page with a wrong token", path: "/?token=WRONG", want: 401},
		{name: "page with a wrong cookie", path: "/", h: http.Header{"Cookie": {cookieName + "=WRONG"}}, want: 401},
		{name: "summary without token or cookie", path: "/api/summary", want: 401},
		{name: "page with the cookie", path: "/", h: withCookie, want: 200, ctype: "text/html"},
		{name: "summary with the cookie", path: "/api/summary", h: withCookie, want: 200, ctype: "application/json"},
		{name: "page with the bearer token", path: "/", h: bearer, want: 200, ctype: "text/html"},
		{name: "page from a foreign origin with the cookie", path: "/", h: with(withCookie, "Origin", "http://evil.example"), want: 403},
		{name: "summary from a foreign origin with the cookie", path: "/api/summary", h: with(withCookie, "Origin", "http://evil.example"), want: 403},
		{name: "page from origin null with the cookie", path: "/", h: with(withCookie, "Origin", "null"), want: 403},
		{name: "summary from origin null with the bearer token", path: "/api/summary", h: with(bearer, "Origin", "null"), want: 403},
		{name: "page from a loopback origin with the bearer token", path: "/", h: with(bearer, "Origin", "http://localhost:5173"), want: 200, ctype: "text/html", origin: "http://localhost:5173"},
		{name: "summary from a loopback origin with the bearer token", path: "/api/summary", h: with(bearer, "Origin", "http://localhost:5173"),
			want: 200, ctype: "application/json", origin: "http://localhost:5173"},
		{name: "page for a foreign Host with the bearer token", path: "/", host: evilHost, h: bearer, want: 403},
		{name: "summary for a foreign Host with the cookie", path: "/api/summary", host: evilHost, h: withCookie, want: 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, d, tc.path, tc.host, tc.h)
			if resp.StatusCode != tc.want {
				t.Fatalf("GET %s: %d, want %d\n%s", tc.path, resp.StatusCode, tc.want, body)
			}
			if tc.ctype != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
				t.Errorf("Content-Type %q, want %s", resp.Header.Get("Content-Type"), tc.ctype)
			}
			if tc.ctype == "application/json" {
				var s struct {
					Status *struct {
						Workspace string `json:"workspace"`
					} `json:"status"`
				}
				if err := json.Unmarshal([]byte(body), &s); err != nil || s.Status == nil || s.Status.Workspace != root {
					t.Errorf("summary is not the workspace's: %v\n%s", err, body)
				}
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); tc.origin != "" && got != tc.origin {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tc.origin)
			}
			if tc.want != 200 && strings.Contains(body, d.token) {
				t.Errorf("a refusal shows the token:\n%s", body)
			}
		})
	}

	t.Run("right token for a foreign Host", func(t *testing.T) {
		resp, body := get(t, d, "/?token="+d.token, evilHost, nil)
		if len(resp.Cookies()) > 0 {
			t.Fatalf("a foreign Host got a cookie: %q", resp.Header.Values("Set-Cookie"))
		}
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("/?token=RIGHT with Host %s answers %d %q; want the guard's 403 for a foreign Host", evilHost, resp.StatusCode, strings.TrimSpace(body))
		}
	})

	for _, tc := range []struct {
		name string
		h    http.Header
		want int
	}{
		{"feed with the bearer token", bearer, 101},
		{"feed with the cookie", withCookie, 101},
		{"feed without token or cookie", nil, 401},
		{"feed from a foreign origin with the cookie", with(withCookie, "Origin", "http://evil.example"), 403},
		{"feed from origin null with the cookie", with(withCookie, "Origin", "null"), 403},
		{"feed from a loopback origin with the bearer token", with(bearer, "Origin", "http://localhost:5173"), 101},
		{"feed from a loopback origin with the cookie", with(withCookie, "Origin", "http://127.0.0.1:"+strconv.Itoa(d.port)), 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dialStatus(t, d, tc.h); got != tc.want {
				t.Errorf("websocket handshake: %d, want %d", got, tc.want)
			}
		})
	}

	t.Run("feed for a foreign Host", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, d.base()+"/events", nil)
		req.Host = evilHost
		req.Header = with(bearer, "Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("websocket handshake for Host %s: %d, want 403", evilHost, resp.StatusCode)
		}
	})
}

// TestPageLoginRunsNothing: the status page's login cookie is a
// credential of its own, good for the page's reads and its feed only.
func TestPageLoginRunsNothing(t *testing.T) {
	root := demo(t)
	d := startDaemon(t, root)
	// Whatever the login sets is what a browser would send on to any
	// server on 127.0.0.1, so it is tried on every route.
	login := func() *http.Cookie {
		resp, body := get(t, d, "/?token="+d.token, "", nil)
		if cs := resp.Cookies(); len(cs) == 1 {
			return cs[0]
		}
		t.Fatalf("/?token=RIGHT: want one cookie set, got %d %q\n%s", resp.StatusCode, resp.Header.Values("Set-Cookie"), body)
		return nil
	}
	first, second := login(), login()
	if first.Name != wire.PageCookieName(d.port) {
		t.Errorf("the login cookie is named %q, want %q: one name per daemon, since cookies ignore ports", first.Name, wire.PageCookieName(d.port))
	}
	if first.Value == second.Value {
		t.Errorf("two logins got the same credential %q: it is not minted per login", first.Value)
	}
	cookie := http.Header{"Cookie": {(&http.Cookie{Name: first.Name, Value: first.Value}).String()}}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	post := func(path string, h http.Header) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, d.base()+path, strings.NewReader(ping))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = h.Clone()
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name string
		got  func() int
		want int
	}{
		{"/mcp with the login cookie", func() int { return post("/mcp", cookie) }, 401},
		{"/mcp with the login as a bearer token", func() int { return post("/mcp", bearerHeader(first.Value)) }, 401},
		{"/mcp with the cookie holding the token", func() int {
			return post("/mcp", http.Header{"Cookie": {wire.PageCookieName(d.port) + "=" + d.token}})
		}, 401},
		{"/shutdown with the login cookie", func() int { return post("/shutdown", cookie) }, 401},
		{"/status with the login cookie", func() int { r, _ := get(t, d, "/status", "", cookie); return r.StatusCode }, 401},
		{"summary with the second login", func() int {
			r, _ := get(t, d, "/api/summary", "", http.Header{"Cookie": {(&http.Cookie{Name: second.Name, Value: second.Value}).String()}})
			return r.StatusCode
		}, 200},
		{"feed with the login cookie", func() int { return dialStatus(t, d, cookie) }, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.got(); got != tc.want {
				t.Errorf("%d, want %d", got, tc.want)
			}
		})
	}
}
