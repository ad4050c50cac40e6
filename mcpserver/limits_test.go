package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

func batchOf(n int, msg func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = msg(i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestBatchTooLong: a batch past MaxBatch is refused whole, naming the
// limit; one at the limit is answered entry by entry.
func TestBatchTooLong(t *testing.T) {
	f := newFixture(t, &Options{Limits: &Limits{MaxBatch: 10}})
	ss := initSession(t, f.srv, "2025-03-26", nil)
	ping := func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i) }
	reply := string(ss.HandleBody(context.Background(), []byte(batchOf(11, ping)), nil))
	if !strings.Contains(reply, `"code":-32600`) || !strings.Contains(reply, "holds 11 messages") || !strings.Contains(reply, "at most 10") {
		t.Fatalf("an 11-entry batch: %s", reply)
	}
	var answers []json.RawMessage
	if err := json.Unmarshal(ss.HandleBody(context.Background(), []byte(batchOf(10, ping)), nil), &answers); err != nil || len(answers) != 10 {
		t.Fatalf("a 10-entry batch: %d answers, %v", len(answers), err)
	}
}

// TestBatchPool: a batch's entries run at most BatchWorkers at once.
func TestBatchPool(t *testing.T) {
	var now, peak atomic.Int32
	f := newFixture(t, &Options{Limits: &Limits{BatchWorkers: 3}})
	f.srv.SetTools(append(f.srv.tools, Tool{Def: mcp.Tool{Name: "busy", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(ctx context.Context, c *Call) (any, error) {
			n := now.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			now.Add(-1)
			return map[string]int{}, nil
		}}))
	ss := initSession(t, f.srv, "2025-03-26", nil)
	reply := ss.HandleBody(context.Background(), []byte(batchOf(12, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"busy"}}`, i)
	})), nil)
	var answers []json.RawMessage
	if err := json.Unmarshal(reply, &answers); err != nil || len(answers) != 12 {
		t.Fatalf("answers: %s", reply)
	}
	if p := peak.Load(); p > 3 || p < 1 {
		t.Errorf("%d entries ran at once; the pool has 3 workers", p)
	}
}

// TestAnswerBudget: an answer over MaxAnswerBytes becomes an error naming
// the sizes, alone or as part of a batch, and the rest of the batch still
// fits.
func TestAnswerBudget(t *testing.T) {
	f := newFixture(t, &Options{Limits: &Limits{MaxAnswerBytes: 4096}})
	ss := initSession(t, f.srv, "2025-03-26", nil)
	big := strings.Repeat("x", 5000)
	one := string(ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"`+big+`"}}}`), nil))
	if !strings.Contains(one, `"code":-32603`) || !strings.Contains(one, "answer too large") || !strings.Contains(one, "limit of 4096 bytes") || strings.Contains(one, big) {
		t.Fatalf("an answer over the limit: %.300s", one)
	}
	small := strings.Repeat("y", 1500)
	reply := ss.HandleBody(context.Background(), []byte(batchOf(4, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"s":"%s"}}}`, i, small)
	})), nil)
	if len(reply) > 4096+2048 {
		t.Errorf("the batch's answer is %d bytes, past the budget", len(reply))
	}
	var answers []struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(reply, &answers); err != nil || len(answers) != 4 {
		t.Fatalf("batch: %v %s", err, reply)
	}
	ok, refused := 0, 0
	for _, a := range answers {
		if a.Error != nil && strings.Contains(a.Error.Message, "answer too large") {
			refused++
		} else if a.Result != nil {
			ok++
		}
	}
	if ok == 0 || refused == 0 || ok+refused != 4 {
		t.Errorf("batch over the budget: %d answered, %d refused", ok, refused)
	}
}

// TestDuplicateInFlightID: a request reusing the id of one in flight is
// refused, and cancelling that id still cancels the first.
func TestDuplicateInFlightID(t *testing.T) {
	f := newFixture(t, nil)
	ss := initSession(t, f.srv, "2025-06-18", nil)
	done := make(chan []byte)
	go func() {
		done <- ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}`), nil)
	}()
	<-f.started
	dup := string(ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`), nil))
	if !strings.Contains(dup, `"id":7`) || !strings.Contains(dup, `"code":-32600`) || !strings.Contains(dup, "already in flight") {
		t.Fatalf("duplicate id: %s", dup)
	}
	ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`), nil)
	select {
	case r := <-done:
		if r != nil {
			t.Errorf("the cancelled request answered %s", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cancelling id 7 did not cancel the first request")
	}
	// Once it is done, the id is free again.
	if r := string(ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`), nil)); !strings.Contains(r, `"result":{}`) {
		t.Errorf("id 7 after the first ended: %s", r)
	}
}

// TestSessionCapConcurrent: creators racing past the cap never leave more
// than MaxSessions live sessions.
func TestSessionCapConcurrent(t *testing.T) {
	f := newFixture(t, &Options{MaxSessions: 8})
	for range 8 {
		initSession(t, f.srv, "2025-06-18", nil)
	}
	for round := range 20 {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				<-start
				f.srv.NewSession(nil)
			})
		}
		close(start)
		wg.Wait()
		if n := f.srv.Stats().Sessions; n > 8 {
			t.Fatalf("round %d: %d live sessions past a cap of 8", round, n)
		}
	}
}

// TestSessionExpiry: a session with no request and no stream ends after
// SessionIdle; one holding a stream, or with a request in flight, stays.
func TestSessionExpiry(t *testing.T) {
	f := newFixture(t, &Options{SessionIdle: 200 * time.Millisecond})
	idle := initSession(t, f.srv, "2025-06-18", nil)
	held := initSession(t, f.srv, "2025-06-18", nil)
	release := held.Hold()
	busy := initSession(t, f.srv, "2025-06-18", nil)
	go busy.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`), nil)
	<-f.started
	select {
	case <-idle.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the idle session never expired")
	}
	time.Sleep(600 * time.Millisecond) // three idle periods
	for name, ss := range map[string]*Session{"holding a stream": held, "with a request in flight": busy} {
		if f.srv.Session(ss.ID()) == nil {
			t.Errorf("the session %s expired", name)
		}
	}
	release()
	select {
	case <-held.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the session did not expire once its stream closed")
	}
	busy.Close()
	// A session never expires with SessionIdle < 0.
	g := newFixture(t, &Options{SessionIdle: -1})
	forever := initSession(t, g.srv, "2025-06-18", nil)
	time.Sleep(50 * time.Millisecond)
	if g.srv.Session(forever.ID()) == nil {
		t.Error("a session expired with expiry off")
	}
}
