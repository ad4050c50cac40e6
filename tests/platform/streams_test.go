//go:build !windows

package platform_test

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/listen"
)

// stillServes checks what must work however many streams are open:
// /healthz, a push with an ingest token, and a read.
func stillServes(t *testing.T, ts *tenants, base string) {
	t.Helper()
	if r := do(t, "GET", base+"/healthz", "", nil); r.status != http.StatusOK {
		t.Fatalf("/healthz with the streams open: %d %s", r.status, r.body)
	}
	run := runsOfWeb("web")[0]
	run.RunID, run.StartedAt = fmt.Sprintf("c%011x", time.Now().UnixNano()&0xffffffffff), T0.Add(5*time.Hour)
	if r := push(t, base, ts.acmeIngest, run); r.status != http.StatusCreated {
		t.Fatalf("a push with the streams open: %d %s", r.status, r.body)
	}
	if r := do(t, "GET", base+"/v1/runs/"+run.RunID, ts.acme, nil); r.status != http.StatusOK || !strings.Contains(string(r.body), run.RunID) {
		t.Fatalf("a read with the streams open: %d %s", r.status, r.body)
	}
}

// bareConns opens n connections that never send a request.
func bareConns(t *testing.T, base string, n int) {
	t.Helper()
	u, _ := url.Parse(base)
	for range n {
		c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			t.Fatalf("dialling the platform: %v", err)
		}
		t.Cleanup(func() { c.Close() })
	}
}

// TestListenStreamsCappedPerToken: one read token asking for 100 listen
// streams gets a few, the rest refused with 429 naming the token's cap;
// health, ingest and reads go on being served, bare connections besides.
func TestListenStreamsCappedPerToken(t *testing.T) {
	ts, srv := statelessPlatform(t)
	open, refused := listen.OpenMany(t, srv.base+"/mcp", []string{ts.acme}, 100, 30*time.Second)
	if len(refused) == 0 || !strings.HasPrefix(refused[0], "429") || !strings.Contains(refused[0], "token") {
		t.Fatalf("one token holds %d listen streams; want the ones over its cap refused with 429 naming the token (first refusal: %v)", len(open), refused)
	}
	bareConns(t, srv.base, 200)
	stillServes(t, ts, srv.base)
	// The other token's streams are not the first one's to use up.
	if s, status, body, err := listen.Open(srv.base+"/mcp", ts.beta, 30*time.Second); s == nil {
		t.Fatalf("another token's stream: %d %s %v", status, body, err)
	} else {
		s.Close()
	}
}

// TestStreamsWithinFileLimit: under `ulimit -n 256`, read tokens opening
// 300 listen streams between them (each within its own cap) and 300 bare
// connections leave the platform answering /healthz, pushes and reads:
// streams and connections are capped below what the process may open.
func TestStreamsWithinFileLimit(t *testing.T) {
	ts := seed(t)
	_, bin := binaries(t)
	srv := startServe(t, bin, ts.p.url, "prlimit", "--nofile=256:256", "--")
	var toks []string
	for range 30 {
		tok, _ := ts.p.token(t, "acme", "read", "")
		toks = append(toks, tok)
	}
	open, refused := listen.OpenMany(t, srv.base+"/mcp", toks, 10, 30*time.Second)
	if len(refused) == 0 || !strings.HasPrefix(refused[0], "503") {
		t.Fatalf("%d streams open; want those over the platform's cap refused with 503 (first refusal: %v)", len(open), refused)
	}
	bareConns(t, srv.base, 300)
	stillServes(t, ts, srv.base)
}
