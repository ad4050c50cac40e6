package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// withCounted adds a tool "big" answering n bytes and counting its runs.
func withCounted(f *fixture, n int, runs *atomic.Int32) {
	f.srv.SetTools(append(f.srv.tools, Tool{Def: mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(ctx context.Context, c *Call) (any, error) {
			runs.Add(1)
			return map[string]string{"s": strings.Repeat("z", n)}, nil
		}}))
}

// TestSpentBudgetStopsTheBatch: once a body's answers have spent its
// budget, the batch's remaining requests are refused without running.
func TestSpentBudgetStopsTheBatch(t *testing.T) {
	var runs atomic.Int32
	f := newFixture(t, &Options{Limits: &Limits{MaxAnswerBytes: 10000, BatchWorkers: 1}})
	withCounted(f, 3000, &runs)
	ss := initSession(t, f.srv, "2025-03-26", nil)
	reply := ss.HandleBody(context.Background(), []byte(batchOf(20, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big"}}`, i)
	})), nil)
	var answers []struct {
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(reply, &answers); err != nil || len(answers) != 20 {
		t.Fatalf("answers: %v %.300s", err, reply)
	}
	for _, a := range answers[len(answers)-5:] {
		if a.Error == nil || !strings.Contains(a.Error.Message, "answer too large") {
			t.Fatalf("an entry after the budget was spent: %+v", a)
		}
	}
	if n := runs.Load(); n > 3 {
		t.Errorf("the tool ran %d times for a budget that holds one answer of ~6 KB", n)
	}
}

// TestSharedAnswerPool: large answers held by one reply count against the
// server's shared bound until released; another body's large answer that
// does not fit beside them is refused as busy (a small one is not), and
// fits once they are.
func TestSharedAnswerPool(t *testing.T) {
	var runs atomic.Int32
	f := newFixture(t, &Options{Limits: &Limits{SharedAnswerBytes: 3 << 20}})
	withCounted(f, 1<<20, &runs)
	a, b := initSession(t, f.srv, "2025-06-18", nil), initSession(t, f.srv, "2025-06-18", nil)
	msgs := []*jsonrpc.Message{mustDecode(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`)}
	held := a.Answer(context.Background(), msgs, false, nil)
	if !strings.Contains(string(held.Bytes()), `"result"`) {
		t.Fatalf("the first answer: %.300s", held.Bytes())
	}
	second := string(b.Handle(context.Background(), msgs, false, nil))
	if !strings.Contains(second, "server busy") {
		t.Fatalf("an answer beside one holding the pool: %.300s", second)
	}
	echo := []*jsonrpc.Message{mustDecode(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"s":"small"}}}`)}
	if small := string(b.Handle(context.Background(), echo, false, nil)); !strings.Contains(small, `"result"`) {
		t.Fatalf("a small answer beside one holding the pool: %.300s", small)
	}
	held.Release()
	held.Release()
	if third := string(b.Handle(context.Background(), msgs, false, nil)); !strings.Contains(third, `"result"`) {
		t.Fatalf("an answer once the pool was released: %.300s", third)
	}
}
