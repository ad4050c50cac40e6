package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	// over it is replaced by a -32603 error that says so. Once a body's
	// budget is spent, its remaining requests are refused without being
	// computed, and a tool may read what is left (AnswerRoom) to stop
	// building an answer that cannot fit.
	MaxAnswerBytes int
	// CallsAtOnce bounds the tools/call requests computed at once across
	// the server, their answers' encoding included (0: no bound; vxd's
	// runTasks runs for minutes beside reads). Others wait their turn.
	CallsAtOnce int
	// SharedAnswerBytes bounds the answers held at once across all bodies
	// until each reply is written and released, beyond the first 64 KiB
	// of each body's (0: no bound). An answer that does not fit beside
	// the others is replaced by a -32603 error saying the server is busy.
	SharedAnswerBytes int
}

// Default limits.
const (
	defaultMaxBatch       = 100
	defaultBatchWorkers   = 4
	defaultMaxAnswerBytes = 48 << 20
)

func (l *Limits) withDefaults() Limits {
	var out Limits
	if l != nil {
		out = *l
	}
	if out.MaxBatch <= 0 {
		out.MaxBatch = defaultMaxBatch
	}
	if out.BatchWorkers <= 0 {
		out.BatchWorkers = defaultBatchWorkers
	}
	if out.MaxAnswerBytes <= 0 {
		out.MaxAnswerBytes = defaultMaxAnswerBytes
	}
	return out
}

// answerBudget is what is left of MaxAnswerBytes for one body's replies,
// and what they hold of the server's shared pool.
type answerBudget struct {
	mu   sync.Mutex
	left int
	max  int
	pool *answerPool // nil: no shared bound
	held int         // bytes taken from pool
	// exempt is what the body holds outside the pool (smallAnswers).
	exempt int
	// spent is set once an answer of the body was refused for its size:
	// the requests not yet started are then refused without running.
	spent bool
}

func (s *Server) newBudget() *answerBudget {
	return &answerBudget{left: s.limits.MaxAnswerBytes, max: s.limits.MaxAnswerBytes, pool: s.answers}
}

// room is what an answer may still take: the body's budget, and what the
// pool has free (busy when that is the lesser).
func (b *answerBudget) room() answerRoom {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := answerRoom{left: b.left, max: b.max}
	if b.spent {
		r.left = 0
	}
	if b.pool != nil {
		if free := max(b.pool.free(), smallAnswers-b.exempt); free < r.left {
			r.left, r.busy = free, true
		}
	}
	return r
}

// smallAnswers is how much of its answers a body may hold outside the
// shared pool: ordinary answers are never refused as busy, however long a
// slow reader keeps large ones from being released, and a thousand
// connections reading slowly hold 64 MiB of them at most.
const smallAnswers = 64 << 10

// release gives the body's share of the pool back (its reply is written
// or dropped).
func (b *answerBudget) release() {
	if b == nil || b.pool == nil {
		return
	}
	b.mu.Lock()
	n := b.held
	b.held = 0
	b.mu.Unlock()
	b.pool.give(n)
}

// answerPool is the server-wide SharedAnswerBytes.
type answerPool struct {
	mu   sync.Mutex
	left int
}

func (p *answerPool) free() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.left
}

func (p *answerPool) take(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > p.left {
		return false
	}
	p.left -= n
	return true
}

func (p *answerPool) give(n int) {
	p.mu.Lock()
	p.left += n
	p.mu.Unlock()
}

// fit returns r, or an error reply in its place when r does not fit in
// what is left of the budget (or of the shared pool). Errors themselves
// are small and always fit.
func (ss *Session) fit(b *answerBudget, m *jsonrpc.Message, r *jsonrpc.Message) *jsonrpc.Message {
	if r == nil || r.Result == nil {
		return r
	}
	n := len(r.Result)
	b.mu.Lock()
	ok := n <= b.left
	pooled := true
	if ok && b.pool != nil {
		if b.exempt+n <= smallAnswers {
			b.exempt += n
		} else if pooled = b.pool.take(n); pooled {
			b.held += n
		}
	}
	if ok && pooled {
		b.left -= n
	}
	b.mu.Unlock()
	switch {
	case !ok:
		return ss.errorReply(m.ID, tooLarge(m, n, b.max))
	case !pooled:
		return ss.errorReply(m.ID, busy(m, n))
	}
	return r
}

// what names a request in a refusal: its method, and a tool's name.
func what(m *jsonrpc.Message) string {
	if name := toolName(m); name != "" {
		return m.Method + " " + name
	}
	return m.Method
}

func tooLarge(m *jsonrpc.Message, n, max int) *jsonrpc.Error {
	size := fmt.Sprintf("is %d bytes", n)
	if n < 0 {
		size = "does not fit in what the answers before it left"
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError,
		"answer too large: the answer to %s %s, over the server's limit of %d bytes per body (see Limits in docs/mcp.md); ask for less, or send the requests of a batch separately",
		what(m), size, max)
}

func busy(m *jsonrpc.Message, n int) *jsonrpc.Error {
	size := fmt.Sprintf(" (%d bytes)", n)
	if n < 0 {
		size = ""
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError,
		"server busy: the answer to %s%s does not fit beside the answers being sent to other requests; try again shortly", what(m), size)
}

// runBatch answers the messages of a batch through a small pool, each
// answer within the body's budget; once the budget is spent, the rest
// are refused without being computed.
func (ss *Session) runBatch(ctx context.Context, msgs []*jsonrpc.Message, emit func(*jsonrpc.Message), budget *answerBudget) []*jsonrpc.Message {
	replies := make([]*jsonrpc.Message, len(msgs))
	sem := make(chan struct{}, ss.srv.limits.BatchWorkers)
	var wg sync.WaitGroup
	for i, m := range msgs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			replies[i] = ss.answerWithin(ctx, budget, m, emit, true)
		})
	}
	wg.Wait()
	return replies
}

// answerWithin answers m within budget: a request (not a notification or
// a response) is refused without being run when the budget has no room
// left, and otherwise runs knowing the room (AnswerRoom).
func (ss *Session) answerWithin(ctx context.Context, budget *answerBudget, m *jsonrpc.Message, emit func(*jsonrpc.Message), inBatch bool) *jsonrpc.Message {
	if m.Kind() == jsonrpc.KindRequest {
		room := budget.room()
		switch {
		case room.left <= 0 && room.busy:
			return ss.errorReply(m.ID, busy(m, -1))
		case room.left <= 0:
			return ss.errorReply(m.ID, tooLarge(m, -1, budget.max))
		}
		ctx = context.WithValue(ctx, roomKey{}, room)
	}
	r := ss.fit(budget, m, ss.handleOne(ctx, m, emit, inBatch))
	if r != nil && r.Error != nil && strings.HasPrefix(r.Error.Message, ErrTooLarge.Error()) {
		// Refused because earlier answers used the budget (not for being
		// over the limit on its own): the rest would be computed in vain.
		budget.mu.Lock()
		budget.spent = budget.left < budget.max
		budget.mu.Unlock()
	}
	return r
}

type roomKey struct{}

// answerRoom is what a request's answer may take, the body's limit, and
// whether the shared pool, not the body, set it.
type answerRoom struct {
	left, max int
	busy      bool
}

// AnswerRoom is how many bytes the answer of the request ctx belongs to
// may take, when the server bounds it: a tool building a large answer
// reads it to stop early, rather than build what will be refused.
func AnswerRoom(ctx context.Context) (int, bool) {
	r, ok := ctx.Value(roomKey{}).(answerRoom)
	return r.left, ok
}

// ErrTooLarge is what a tool returns (wrapped, saying what it was
// building) when its answer would not fit in AnswerRoom.
var ErrTooLarge = errors.New("answer too large")

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
