package shim

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/protocol/jsonrpc"
)

// exchanges is the table of MCP conversations run twice: straight over
// HTTP and through the shim. A client must not be able to tell them apart.
// exchange is one conversation a test has with a daemon through a client.
type exchange struct {
	name string
	run  func(t *testing.T, td *testDialer, c *client)
}

// The exchanges both eras go through alike.
var (
	refusalMasked = exchange{"tool refusal is a masked isError", func(t *testing.T, td *testDialer, c *client) {
		res, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fail"})
		if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != "the *** is wrong" {
			t.Fatalf("%+v %v", res, err)
		}
	}}
	progressArrives = exchange{"progress arrives", func(t *testing.T, td *testDialer, c *client) {
		p := &sdk.CallToolParams{Name: "progress"}
		p.SetProgressToken("tok")
		if _, err := c.cs.CallTool(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		for want := 1.0; want <= 3; want++ {
			if got := <-c.progress; got != want {
				t.Errorf("progress %v, want %v", got, want)
			}
		}
	}}
)

var exchanges = []exchange{
	{"negotiates the newest revision", func(t *testing.T, td *testDialer, c *client) {
		if v := c.cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
			t.Errorf("revision %s", v)
		}
	}},
	{"lists tools", func(t *testing.T, td *testDialer, c *client) {
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) != 4 || res.Tools[0].Name != "echo" {
			t.Fatalf("%v %v", res, err)
		}
	}},
	{"calls a tool with structured content", func(t *testing.T, td *testDialer, c *client) {
		res, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1}})
		if err != nil || res.IsError {
			t.Fatalf("%v %v", res, err)
		}
		if got := res.Content[0].(*sdk.TextContent).Text; got != `{"args":{"x":1}}` {
			t.Errorf("text %s", got)
		}
	}},
	refusalMasked,
	{"unknown tool is -32602", func(t *testing.T, td *testDialer, c *client) {
		_, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "nope"})
		if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "unknown tool") {
			t.Fatalf("err %v", err)
		}
	}},
	progressArrives,
	{"ping is answered while a slow call runs, then the call is cancelled", func(t *testing.T, td *testDialer, c *client) {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow"})
			errc <- err
		}()
		<-td.started
		if err := c.cs.Ping(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("cancelled call succeeded")
		}
		// The daemon's handler has ended: nothing stays in flight.
		if err := c.cs.Ping(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}},
	{"tools list_changed reaches the client", func(t *testing.T, td *testDialer, c *client) {
		td.server().SetTools(testTools(td.started)[:1])
		<-c.changed
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) != 1 {
			t.Fatalf("%v %v", res, err)
		}
	}},
}

func TestExchanges(t *testing.T) { runExchanges(t, exchanges, connectHTTP, connectShim) }

// runExchanges runs each exchange on a fresh daemon, over a client that
// speaks HTTP to it and over one that goes through the shim.
func runExchanges(t *testing.T, list []exchange, http, shim func(*testing.T, *testDialer) *client) {
	for _, mode := range []struct {
		name    string
		connect func(*testing.T, *testDialer) *client
	}{{"http", http}, {"shim", shim}} {
		t.Run(mode.name, func(t *testing.T) {
			for _, ex := range list {
				t.Run(ex.name, func(t *testing.T) {
					td := newDialer(t)
					ex.run(t, td, mode.connect(t, td))
				})
			}
		})
	}
}

func TestRestartIsInvisible(t *testing.T) {
	td := newDialer(t)
	c := connectShim(t, td)
	callAcrossRestart(t, td, c)
	ctx := context.Background()
	// The replayed session is a real one on the new daemon.
	if n := td.server().Stats().Sessions; n != 1 {
		t.Errorf("new daemon has %d sessions", n)
	}
	// A lost session (daemon alive, session gone) recovers the same way.
	td.server().Close()
	if _, err := c.cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("after the session ended: %v", err)
	}
	if _, restarts := td.counts(); restarts != 2 {
		t.Errorf("restarts %d", restarts)
	}
}

// callAcrossRestart calls echo, kills the daemon and calls again: the
// shim starts a new daemon and retries, once.
func callAcrossRestart(t *testing.T, td *testDialer, c *client) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	td.kill()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"after": "restart"}})
	if err != nil || res.IsError {
		t.Fatalf("call after the daemon died: %v %v", res, err)
	}
	if starts, restarts := td.counts(); starts != 2 || restarts != 1 {
		t.Errorf("starts %d restarts %d", starts, restarts)
	}
}

// rawShim runs the shim on pipes the test writes and reads line by line.
type rawShim struct {
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func startRaw(t *testing.T, td *testDialer) *rawShim {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawShim{in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() {
		r.done <- Run(context.Background(), inR, outW, td, nil)
		outW.Close()
	}()
	return r
}

func (r *rawShim) send(t *testing.T, line string) {
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// recv reads one line and checks that it is a JSON-RPC message.
func (r *rawShim) recv(t *testing.T) string {
	t.Helper()
	if !r.out.Scan() {
		t.Fatalf("no line: %v", r.out.Err())
	}
	line := r.out.Text()
	msgs, batch, err := jsonrpc.Decode([]byte(line))
	if err != nil {
		t.Fatalf("stdout carried a non JSON-RPC line %q", line)
	}
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindInvalid {
			t.Fatalf("stdout carried an invalid message %q (batch %v)", line, batch)
		}
	}
	return line
}

func TestStdoutAndEOF(t *testing.T) {
	td := newDialer(t)
	r := startRaw(t, td)

	r.send(t, `this is not json`)
	if got := r.recv(t); !strings.Contains(got, `"code":-32700`) || !strings.Contains(got, `"id":null`) {
		t.Errorf("malformed line answered %s", got)
	}
	r.send(t, `[]`)
	if got := r.recv(t); !strings.Contains(got, `"code":-32600`) {
		t.Errorf("empty batch answered %s", got)
	}
	if starts, _ := td.counts(); starts != 0 {
		t.Errorf("malformed lines started a daemon")
	}
	r.send(t, `{"jsonrpc":"2.0","id":"p0","method":"ping"}`)
	if got := r.recv(t); got != `{"jsonrpc":"2.0","id":"p0","result":{}}` {
		t.Errorf("ping before initialize: %s", got)
	}
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if got := r.recv(t); !strings.Contains(got, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: %s", got)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A batch under 2025-03-26 comes back as one line holding an array.
	r.send(t, `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"s":"line\nbreak"}}}]`)
	if got := r.recv(t); !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,`) {
		t.Errorf("batch: %s", got)
	}
	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"server/discover"}`)
	if got := r.recv(t); !strings.Contains(got, `"id":4`) || !strings.Contains(got, `-32601`) {
		t.Errorf("discover: %s", got)
	}

	r.in.Close()
	if err := <-r.done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r.out.Scan() {
		t.Errorf("extra output after EOF: %q", r.out.Text())
	}
	if n := td.deletes.Load(); n != 1 {
		t.Errorf("DELETE sent %d times", n)
	}
	if n := td.server().Stats().Sessions; n != 0 {
		t.Errorf("%d sessions left on the daemon", n)
	}
}
