package remotecache_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// failingProxy forwards to the real server, except that the first request
// fail selects is answered 500; it records every request it receives and
// which came after that 500.
type failingProxy struct {
	*httptest.Server
	mu     sync.Mutex
	failed string   // the request answered 500, "" until then
	after  []string // requests received once the 500 was answered
	all    []string
}

func newFailingProxy(t *testing.T, srv *server, fail func(*http.Request) bool) *failingProxy {
	t.Helper()
	target, _ := url.Parse(srv.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	p := &failingProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		what := r.Method + " " + r.URL.Path
		p.mu.Lock()
		p.all = append(p.all, what)
		if p.failed != "" {
			p.after = append(p.after, what)
		}
		answer500 := p.failed == "" && fail(r)
		if answer500 {
			p.failed = what
		}
		p.mu.Unlock()
		if answer500 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"statusCode":500,"error":"Internal Server Error","message":"storage unavailable"}`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// TestServerErrorTurnsRemoteOff: once the remote cache answers 500, vx
// asks it nothing more for the rest of the run (as Turborepo does), warns
// once, and the run passes on the local cache.
func TestServerErrorTurnsRemoteOff(t *testing.T) {
	srv := startServer(t)
	isStatus := func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/status") }
	for _, tc := range []struct {
		name   string
		fail   func(*http.Request) bool
		args   []string
		status string
	}{
		// Three tasks (lib, app, tool in a chain): every download and upload
		// waits for the status answer.
		{"status", isStatus, []string{"build"}, "serverError"},
		// One task: its download fails, and its upload must not be sent.
		{"download", func(r *http.Request) bool { return r.Method == http.MethodGet && !isStatus(r) }, []string{"build", "--filter", "lib"}, "serverError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFailingProxy(t, srv, tc.fail)
			ws := clone(t)
			s, res := runJSON(t, ws, env(&server{URL: p.URL}), tc.args...)
			p.mu.Lock()
			failed, after, seen := p.failed, p.after, p.all
			p.mu.Unlock()
			if failed == "" {
				t.Fatalf("no request was answered 500 (requests: %v)\n%s", seen, res)
			}
			if len(after) != 0 {
				t.Errorf("after the 500 to %s, vx sent %d more requests: %v", failed, len(after), after)
			}
			if !s.OK || !all(s, "miss") {
				t.Errorf("want a passing run, every task executed: %v\n%s", sources(s), res)
			}
			if w := warnings(s, p.URL); len(w) != 1 || !strings.Contains(w[0], "HTTP 500") || !strings.Contains(w[0], "local cache only") {
				t.Errorf("want one warning naming the 500 and that the run goes on locally, got %q", s.Warnings)
			}
			if s.Remote == nil || s.Remote.Status != tc.status {
				t.Errorf("remote status %+v, want %s", s.Remote, tc.status)
			}
		})
	}
}
