package shim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// lineShim runs Run on pipes with opts; send writes a line, next reads one.
type lineShim struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

func startLines(t *testing.T, d Dialer, opts *Options) *lineShim {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Run(context.Background(), inR, outW, d, opts)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-done
	})
	return &lineShim{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
}

func (l *lineShim) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(l.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// answer reads lines until the response to id, within a generous limit.
func (l *lineShim) answer(t *testing.T, id string) map[string]json.RawMessage {
	t.Helper()
	got := make(chan map[string]json.RawMessage, 1)
	go func() {
		for {
			line, err := l.out.ReadBytes('\n')
			if err != nil {
				close(got)
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) == nil && string(m["id"]) == id {
				got <- m
				return
			}
		}
	}()
	select {
	case m, ok := <-got:
		if !ok {
			t.Fatalf("the shim ended without answering id %s", id)
		}
		return m
	case <-time.After(2 * time.Minute):
		t.Fatalf("no answer to id %s after 2 minutes: the client would wait forever", id)
	}
	return nil
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func errorText(m map[string]json.RawMessage) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(m["error"], &e) != nil {
		return ""
	}
	return e.Message
}

// TestWritesAreNotReplayed: a call the daemon received and then lost with
// its daemon is sent again only when its tool is read-only. A tool with
// no readOnlyHint runs once and is answered "outcome unknown"; a
// readOnlyHint tool is retried on the restarted daemon and answers.
func TestWritesAreNotReplayed(t *testing.T) {
	td := newDialer(t)
	var mutations, looks atomic.Int32
	obj := json.RawMessage(`{"type":"object"}`)
	// Each tool kills its daemon the first time it runs, mid-call; like a
	// process killed with SIGKILL, the call never returns.
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	killOnce := func(n *atomic.Int32) func(ctx context.Context, c *mcpserver.Call) (any, error) {
		return func(ctx context.Context, c *mcpserver.Call) (any, error) {
			if n.Add(1) == 1 {
				go td.kill()
				<-never
				return nil, ctx.Err()
			}
			return map[string]int{"runs": int(n.Load())}, nil
		}
	}
	td.extra = func(*testDialer) []mcpserver.Tool {
		return []mcpserver.Tool{
			{Def: mcp.Tool{Name: "mutate", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true)}}, Handler: killOnce(&mutations)},
			{Def: mcp.Tool{Name: "look", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}}, Handler: killOnce(&looks)},
		}
	}
	l := startLines(t, td, nil)
	l.send(t, initLine)
	l.answer(t, "1")
	l.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mutate"}}`)
	m := l.answer(t, "2")
	if msg := errorText(m); !strings.Contains(msg, "unknown") || !strings.Contains(msg, "getRunHistory") || !strings.Contains(msg, "tools/call mutate") {
		t.Fatalf("a lost write: want an error saying its outcome is unknown, got %s", m)
	}
	if n := mutations.Load(); n != 1 {
		t.Errorf("the write ran %d times", n)
	}
	l.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"look"}}`)
	if m := l.answer(t, "3"); m["result"] == nil || looks.Load() != 2 {
		t.Fatalf("a lost read-only call is retried: got %s after %d runs", m, looks.Load())
	}
	if starts, _ := td.counts(); starts != 3 {
		t.Errorf("%d daemons started, want 3", starts)
	}
}

// TestStalledDaemon: a daemon that accepts and then sends nothing (as one
// stopped with SIGSTOP) gets the request answered with an error within
// the stall time, not never.
func TestStalledDaemon(t *testing.T) {
	td := newDialer(t)
	obj := json.RawMessage(`{"type":"object"}`)
	td.extra = func(*testDialer) []mcpserver.Tool {
		return []mcpserver.Tool{{Def: mcp.Tool{Name: "hang", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}}
	}
	l := startLines(t, td, &Options{StallTimeout: time.Second})
	l.send(t, initLine)
	l.answer(t, "1")
	l.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hang"}}`)
	if msg := errorText(l.answer(t, "2")); !strings.Contains(msg, "sent nothing for 1s") {
		t.Fatalf("a stalled call: %q", msg)
	}
	// A bare socket that never answers at all: initialize fails too.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	l2 := startLines(t, fixedDialer("http://"+ln.Addr().String()), &Options{StallTimeout: time.Second})
	l2.send(t, initLine)
	if msg := errorText(l2.answer(t, "1")); !strings.Contains(msg, "sent nothing") {
		t.Fatalf("initialize against a silent daemon: %q", msg)
	}
}

// TestLongCallKeepsGoing: a call that runs far longer than the stall time
// is not cut while the daemon's keep-alives flow.
func TestLongCallKeepsGoing(t *testing.T) {
	td := newDialer(t)
	td.mcpOpts = &httpapi.MCPOptions{KeepAlive: 100 * time.Millisecond}
	obj := json.RawMessage(`{"type":"object"}`)
	td.extra = func(*testDialer) []mcpserver.Tool {
		return []mcpserver.Tool{{Def: mcp.Tool{Name: "long", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
			time.Sleep(6 * time.Second)
			return map[string]bool{"done": true}, nil
		}}}
	}
	// The stall time is 20 keep-alives, so a loaded machine (CI under
	// -race) does not miss it; the call lasts three stall times.
	l := startLines(t, td, &Options{StallTimeout: 2 * time.Second})
	l.send(t, initLine)
	l.answer(t, "1")
	l.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"long"}}`)
	if m := l.answer(t, "2"); !strings.Contains(string(m["result"]), `"done":true`) {
		t.Fatalf("a long call with keep-alives: %s", m)
	}
}

// fixedDialer always names the same daemon.
type fixedDialer string

func (f fixedDialer) Ensure(context.Context, bool) (string, string, error) {
	return string(f), "tok", nil
}

// TestOversizedAnswer: an answer over the shim's 64 MiB line, as JSON or
// as an SSE event, is answered with an error saying so.
func TestOversizedAnswer(t *testing.T) {
	huge := strings.Repeat("x", maxLine+1024)
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				switch {
				case strings.Contains(string(body), `"initialize"`):
					w.Header().Set("Mcp-Session-Id", "s1")
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"big","version":"1"}}}`)
				case r.Method == http.MethodPost && strings.Contains(string(body), `"id":2`):
					answer := `{"jsonrpc":"2.0","id":2,"result":{"s":"` + huge + `"}}`
					if sse {
						w.Header().Set("Content-Type", "text/event-stream")
						io.WriteString(w, "event: message\ndata: "+answer+"\n\n")
						return
					}
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, answer)
				default:
					w.WriteHeader(http.StatusAccepted)
				}
			})}
			go hs.Serve(ln)
			defer hs.Close()
			l := startLines(t, fixedDialer("http://"+ln.Addr().String()), nil)
			l.send(t, initLine)
			l.answer(t, "1")
			l.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big"}}`)
			if msg := errorText(l.answer(t, "2")); !strings.Contains(msg, "over 64 MiB") {
				t.Fatalf("an oversized answer: %q", msg)
			}
		})
	}
}

// TestSessionEndedMidCall: a call whose session the daemon ends while it
// runs (vxd answers 202, owing nothing) is answered with an error, not
// left waiting; a call the client cancelled itself stays unanswered.
func TestSessionEndedMidCall(t *testing.T) {
	td := newDialer(t)
	l := startLines(t, td, nil)
	l.send(t, initLine)
	l.answer(t, "1")
	l.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
	<-td.started
	l.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	l.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow"}}`)
	<-td.started
	td.server().Close()
	m := l.answer(t, "3")
	if msg := errorText(m); !strings.Contains(msg, "without an answer") {
		t.Fatalf("a call whose session ended: %s", m)
	}
}
