package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

const testToken = "tok-0123456789abcdef"

// daemon is a real HTTP server on 127.0.0.1 serving test tools.
type daemon struct {
	URL     string // http://127.0.0.1:PORT
	Port    int
	Srv     *mcpserver.Server
	started chan struct{} // the slow tool has started
}

func testTools(started chan struct{}) []mcpserver.Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	return []mcpserver.Tool{
		{Def: mcp.Tool{Name: "echo", Description: "echoes its arguments", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}},
			Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
				return map[string]json.RawMessage{"args": c.Arguments}, nil
			}},
		{Def: mcp.Tool{Name: "progress", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
			for i := 1; i <= 3; i++ {
				c.Progress(float64(i), 3, fmt.Sprintf("step %d", i))
			}
			return map[string]int{"steps": 3}, nil
		}},
		{Def: mcp.Tool{Name: "slow", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		{Def: mcp.Tool{Name: "fail", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
			return nil, errors.New("login with secret failed")
		}},
	}
}

func startDaemon(t *testing.T, maxSessions int) *daemon {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{Port: ln.Addr().(*net.TCPAddr).Port, started: make(chan struct{}, 1)}
	d.URL = fmt.Sprintf("http://127.0.0.1:%d", d.Port)
	d.Srv = mcpserver.New(&mcpserver.Options{
		Name: "vxd-test", Version: "0.0.1", MaxSessions: maxSessions,
		Mask: func(s string) string { return strings.ReplaceAll(s, "secret", "***") },
	})
	d.Srv.SetTools(testTools(d.started))
	mux := http.NewServeMux()
	mux.Handle("/mcp", NewMCPHandler(d.Srv, &MCPOptions{MaxBodyBytes: 64 << 10}))
	hs := &http.Server{Handler: Guard(mux, GuardOptions{Port: d.Port, Token: testToken})}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() {
		d.Srv.Close()
		_ = hs.Close()
	})
	return d
}

// bearer adds the token to every request of an http.Client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
