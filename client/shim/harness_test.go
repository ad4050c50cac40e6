package shim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// daemon is one "process" of a test vxd: its own MCP server state, token
// and port.
type daemon struct {
	url, token string
	srv        *mcpserver.Server
	hs         *http.Server
	deletes    *atomic.Int32
}

func (d *daemon) stop() {
	d.srv.Close()
	_ = d.hs.Close()
}

// testDialer starts daemons on demand and can kill the current one; a
// killed daemon's address stays cached (like a stale discovery file) until
// Ensure is asked to restart.
type testDialer struct {
	t       *testing.T
	started chan struct{}
	deletes atomic.Int32

	mu       sync.Mutex
	cur      *daemon
	starts   int
	restarts int
	// extra tools every daemon it starts serves, and options of its
	// endpoint (nil: defaults).
	extra   func(td *testDialer) []mcpserver.Tool
	mcpOpts *httpapi.MCPOptions
}

func newDialer(t *testing.T) *testDialer {
	d := &testDialer{t: t, started: make(chan struct{}, 1)}
	t.Cleanup(func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.cur != nil {
			d.cur.stop()
		}
	})
	return d
}

func (td *testDialer) Ensure(ctx context.Context, restart bool) (string, string, error) {
	td.mu.Lock()
	defer td.mu.Unlock()
	if restart {
		td.restarts++
	}
	if td.cur == nil || restart {
		if td.cur != nil {
			td.cur.stop()
		}
		d, err := td.start()
		if err != nil {
			return "", "", err
		}
		td.cur = d
	}
	return td.cur.url, td.cur.token, nil
}

func (td *testDialer) start() (*daemon, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	d := &daemon{url: fmt.Sprintf("http://127.0.0.1:%d", port), token: hex.EncodeToString(tok[:]), deletes: &td.deletes}
	d.srv = mcpserver.New(&mcpserver.Options{Name: "vxd-test", Version: "1", Mask: func(s string) string { return strings.ReplaceAll(s, "secret", "***") }})
	tools := testTools(td.started)
	if td.extra != nil {
		tools = append(tools, td.extra(td)...)
	}
	d.srv.SetTools(tools)
	mux := http.NewServeMux()
	mcpH := httpapi.NewMCPHandler(d.srv, td.mcpOpts)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			d.deletes.Add(1)
		}
		mcpH.ServeHTTP(w, r)
	}))
	d.hs = &http.Server{Handler: httpapi.Guard(mux, httpapi.GuardOptions{Port: port, Token: d.token})}
	go func() { _ = d.hs.Serve(ln) }()
	td.starts++
	return d, nil
}

// counts reports how many daemons were started and how many restarts asked.
func (td *testDialer) counts() (starts, restarts int) {
	td.mu.Lock()
	defer td.mu.Unlock()
	return td.starts, td.restarts
}

// kill stops the current daemon without telling anyone.
func (td *testDialer) kill() {
	td.mu.Lock()
	defer td.mu.Unlock()
	td.cur.stop()
}

func (td *testDialer) server() *mcpserver.Server {
	td.mu.Lock()
	defer td.mu.Unlock()
	return td.cur.srv
}

func testTools(started chan struct{}) []mcpserver.Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	return []mcpserver.Tool{
		{Def: mcp.Tool{Name: "echo", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
			return map[string]json.RawMessage{"args": c.Arguments}, nil
		}},
		{Def: mcp.Tool{Name: "progress", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
			for i := 1; i <= 3; i++ {
				c.Progress(float64(i), 3, "")
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
			return nil, errors.New("the secret is wrong")
		}},
	}
}

// client is an SDK client session plus what its handlers received.
type client struct {
	cs       *sdk.ClientSession
	progress chan float64
	changed  chan struct{}
}

func newSDKClient() (*sdk.Client, *client) {
	c := &client{progress: make(chan float64, 16), changed: make(chan struct{}, 1)}
	cl := sdk.NewClient(&sdk.Implementation{Name: "table", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case c.changed <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { c.progress <- r.Params.Progress },
	})
	return cl, c
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// sessionEra is the options of a client of the session era (2025-11-25);
// the stateless era has its own tests, with the SDK's defaults.
func sessionEra() *sdk.ClientSessionOptions {
	return &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
}

// connectHTTP connects a session-era SDK client straight to the daemon.
func connectHTTP(t *testing.T, td *testDialer) *client { return dialHTTP(t, td, sessionEra()) }

// connectShim connects a session-era SDK client to Run over a pair of
// pipes, as an MCP client spawning `vx mcp` would.
func connectShim(t *testing.T, td *testDialer) *client { return dialShim(t, td, sessionEra(), nil) }

// dialHTTP connects an SDK client with opts (nil: the SDK's defaults)
// straight to the daemon.
func dialHTTP(t *testing.T, td *testDialer, opts *sdk.ClientSessionOptions) *client {
	base, token, err := td.Ensure(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	cl, c := newSDKClient()
	cs, err := cl.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return c
}

// dialShim connects an SDK client with opts to Run over a pair of pipes.
// At the test's end the client is closed, Run must return nil, and then
// atEnd (may be nil) runs.
func dialShim(t *testing.T, td *testDialer, opts *sdk.ClientSessionOptions, atEnd func()) *client {
	toShim, clientOut := io.Pipe()
	clientIn, fromShim := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), toShim, fromShim, td, nil)
		fromShim.Close()
	}()
	cl, c := newSDKClient()
	cs, err := cl.Connect(context.Background(), &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.cs = cs
	t.Cleanup(func() {
		_ = cs.Close()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if atEnd != nil {
			atEnd()
		}
	})
	return c
}
