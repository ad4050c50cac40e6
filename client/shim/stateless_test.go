package shim

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/protocol/mcp"
)

// The official SDK, left to its defaults, speaks 2026-07-28: it probes
// with server/discover and, when answered, never initializes. These
// connect functions leave it so.

func connectStatelessHTTP(t *testing.T, td *testDialer) *client { return dialHTTP(t, td, nil) }

// connectStatelessShim's client, closed, ends its listen stream on the
// daemon too.
func connectStatelessShim(t *testing.T, td *testDialer) *client {
	return dialShim(t, td, nil, func() { waitInFlight(t, td, 0) })
}

// waitInFlight waits until the daemon has n requests in flight (the SDK
// holds one open: its subscriptions/listen stream).
func waitInFlight(t *testing.T, td *testDialer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for td.server().Stats().InFlight != n {
		if time.Now().After(deadline) {
			t.Fatalf("daemon has %d requests in flight, want %d", td.server().Stats().InFlight, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var statelessExchanges = []exchange{
	{"speaks 2026-07-28 without a session", func(t *testing.T, td *testDialer, c *client) {
		if v := c.cs.InitializeResult().ProtocolVersion; v != mcp.Rev20260728 {
			t.Errorf("revision %s", v)
		}
		if n := td.server().Stats().Sessions; n != 0 {
			t.Errorf("the daemon holds %d sessions", n)
		}
	}},
	{"lists and calls tools", func(t *testing.T, td *testDialer, c *client) {
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) != 4 || res.Tools[0].Name != "echo" {
			t.Fatalf("%v %v", res, err)
		}
		call, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1}})
		if err != nil || call.IsError || call.Content[0].(*sdk.TextContent).Text != `{"args":{"x":1}}` {
			t.Fatalf("%v %v", call, err)
		}
	}},
	refusalMasked,
	{"unknown tool is -32602", func(t *testing.T, td *testDialer, c *client) {
		_, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "nope"})
		if err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Fatalf("err %v", err)
		}
	}},
	progressArrives,
	{"a cancelled call ends on the daemon", func(t *testing.T, td *testDialer, c *client) {
		waitInFlight(t, td, 1)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow"})
			errc <- err
		}()
		<-td.started
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("cancelled call succeeded")
		}
		waitInFlight(t, td, 1)
	}},
	{"tools list_changed arrives on the listen stream", func(t *testing.T, td *testDialer, c *client) {
		waitInFlight(t, td, 1)
		td.server().SetTools(testTools(td.started)[:1])
		<-c.changed
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) != 1 {
			t.Fatalf("%v %v", res, err)
		}
	}},
}

func TestStatelessExchanges(t *testing.T) {
	runExchanges(t, statelessExchanges, connectStatelessHTTP, connectStatelessShim)
}

// TestStatelessRestartIsInvisible: a lost daemon is restarted and the
// request retried; a stateless client has no session to replay.
func TestStatelessRestartIsInvisible(t *testing.T) {
	td := newDialer(t)
	c := connectStatelessShim(t, td)
	callAcrossRestart(t, td, c)
	if n := td.server().Stats().Sessions; n != 0 {
		t.Errorf("the new daemon holds %d sessions", n)
	}
}

// TestStatelessShimHeaders: raw stdio lines of the stateless era come back with
// the daemon's verdicts, headers derived by the shim (a non-ASCII tool
// name travels base64-encoded and still matches).
func TestStatelessShimHeaders(t *testing.T) {
	td := newDialer(t)
	toShim, w := io.Pipe()
	r, fromShim := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), toShim, fromShim, td, nil); fromShim.Close() }()
	out := bufio.NewScanner(r)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, `"supportedVersions":["2026-07-28","2025-11-25"`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"échø",` + meta + `}}`, `unknown tool \"échø\"`},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","params":{` + meta + `}}`, `"code":-32601`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, `"code":-32022`},
	} {
		if _, err := io.WriteString(w, tc.send+"\n"); err != nil {
			t.Fatal(err)
		}
		if !out.Scan() {
			t.Fatal("the shim wrote nothing")
		}
		if !strings.Contains(out.Text(), tc.want) {
			t.Errorf("sent %s\ngot %s\nwant it to contain %s", tc.send, out.Text(), tc.want)
		}
	}
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
