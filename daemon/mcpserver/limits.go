package mcpserver

import (
	"context"
	"fmt"
	"sync"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// Limits bound what one body may cost the daemon. A zero field takes its
// default; docs/mcp.md ("Limits") lists the defaults.
type Limits struct {
	// MaxBatch is the most messages one batch may hold (default 100); a
	// longer batch is refused whole with -32600.
	MaxBatch int
	// BatchWorkers is how many entries of one batch run at once (default 4).
	BatchWorkers int
	// MaxAnswerBytes caps one response, and the sum of a batch's
	// responses (default 48 MiB, under the shim's 64 MiB line). An answer
	// over it is replaced by a -32603 error that says so.
	MaxAnswerBytes int
}

// Default limits.
const (
	DefaultMaxBatch       = 100
	DefaultBatchWorkers   = 4
	DefaultMaxAnswerBytes = 48 << 20
)

func (l *Limits) withDefaults() Limits {
	var out Limits
	if l != nil {
		out = *l
	}
	if out.MaxBatch <= 0 {
		out.MaxBatch = DefaultMaxBatch
	}
	if out.BatchWorkers <= 0 {
		out.BatchWorkers = DefaultBatchWorkers
	}
	if out.MaxAnswerBytes <= 0 {
		out.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	return out
}

// answerBudget is what is left of MaxAnswerBytes for one body's replies.
type answerBudget struct {
	mu   sync.Mutex
	left int
	max  int
}

// fit returns r, or an error reply in its place when r does not fit in
// what is left of the budget. Errors themselves are small and always fit.
func (ss *Session) fit(b *answerBudget, m *jsonrpc.Message, r *jsonrpc.Message) *jsonrpc.Message {
	if r == nil || r.Result == nil {
		return r
	}
	n := len(r.Result)
	b.mu.Lock()
	ok := n <= b.left
	if ok {
		b.left -= n
	}
	b.mu.Unlock()
	if ok {
		return r
	}
	what := m.Method
	if name := toolName(m); name != "" {
		what += " " + name
	}
	return ss.errorReply(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError,
		"answer too large: the answer to %s is %d bytes, over vxd's limit of %d bytes per body (see Limits in docs/mcp.md); ask for less, or send the requests of a batch separately",
		what, n, b.max))
}

// runBatch answers the messages of a batch through a small pool, each
// answer within the body's budget.
func (ss *Session) runBatch(ctx context.Context, msgs []*jsonrpc.Message, emit func(*jsonrpc.Message), lim Limits) []*jsonrpc.Message {
	budget := &answerBudget{left: lim.MaxAnswerBytes, max: lim.MaxAnswerBytes}
	replies := make([]*jsonrpc.Message, len(msgs))
	sem := make(chan struct{}, lim.BatchWorkers)
	var wg sync.WaitGroup
	for i, m := range msgs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			replies[i] = ss.fit(budget, m, ss.handleOne(ctx, m, emit, true))
		})
	}
	wg.Wait()
	return replies
}

// batchTooLong is the refusal of a batch over MaxBatch.
func batchTooLong(n, max int) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
		"invalid request: the batch holds %d messages; vxd accepts at most %d in one batch (see Limits in docs/mcp.md): split it", n, max)
}

// duplicateID is the refusal of a request whose id is already in flight.
func duplicateID(id []byte) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
		"invalid request: id %s is already in flight in this session; give every request its own id (a cancellation names one request)", id)
}

// toolName reads the tool a tools/call names, "" for anything else.
func toolName(m *jsonrpc.Message) string {
	if m.Method != mcp.MethodToolsCall {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	if decodeParams(m.Params, &p) != nil {
		return ""
	}
	return fmt.Sprintf("%q", p.Name)
}
