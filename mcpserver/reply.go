package mcpserver

import (
	"context"
	"io"
	"sync"

	"github.com/vzn/vx/protocol/jsonrpc"
)

// Reply is the answer to one body before it is written: one response, a
// batch's responses, or nothing. A transport writes it with WriteTo, so
// that results are not copied into one more buffer: a batch of a hundred
// answers kept by a tool's memo goes out from the one copy they share, and
// the answer to a body costs the daemon no second copy of itself.
//
// A response whose result came from the server (every result is encoded
// compact: EncodeResult, jsonrpc.Encode, the masker) is written from its
// id and result as Message.MarshalJSON joins them; any other message is
// encoded once when the Reply is made. The bytes are those jsonrpc.Encode
// gives for the message or the batch.
type Reply struct {
	msgs  []*jsonrpc.Message
	enc   [][]byte // per message: its encoding, nil when written from its parts
	batch bool
	size  int
	// budget holds the reply's share of the shared answer pool.
	budget *answerBudget
}

func newReply(batch bool, msgs ...*jsonrpc.Message) *Reply {
	r := &Reply{msgs: msgs, enc: make([][]byte, len(msgs)), batch: batch}
	for i, m := range msgs {
		if joinable(m) {
			r.size += len(respPrefix) + len(m.ID) + len(respMiddle) + len(m.Result) + 1
			continue
		}
		b, err := jsonrpc.Encode(m)
		if err != nil {
			// Only a handler's result can fail to encode, and results are
			// encoded earlier; this is a last resort.
			b, _ = jsonrpc.Encode(jsonrpc.NewError(nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: encoding the answer")))
		}
		r.enc[i] = b
		r.size += len(b)
	}
	if batch {
		r.size += 2 + max(0, len(msgs)-1) // [ , ]
	}
	return r
}

// joinable is Message.MarshalJSON's hot path: a response with an id and
// a result, written as its parts joined.
func joinable(m *jsonrpc.Message) bool {
	return m.Method == "" && m.Error == nil && len(m.ID) > 0 && len(m.Result) > 0
}

const (
	respPrefix = `{"jsonrpc":"2.0","id":`
	respMiddle = `,"result":`
)

// Empty reports that nothing is owed (only notifications and responses
// came).
func (r *Reply) Empty() bool { return r == nil || len(r.msgs) == 0 }

// Len is the size of the encoded reply in bytes.
func (r *Reply) Len() int {
	if r.Empty() {
		return 0
	}
	return r.size
}

// Succeeded reports whether the reply is one response carrying a result
// (not an error).
func (r *Reply) Succeeded() bool {
	return !r.Empty() && !r.batch && r.msgs[0].Method == "" && r.msgs[0].Error == nil
}

// smallReply is the size under which WriteTo joins the reply into one
// buffer and writes it at once: cheaper than five writes for the usual
// answer, and a copy that small costs nothing to hold.
const smallReply = 32 << 10

// WriteTo writes the encoded reply to w.
func (r *Reply) WriteTo(w io.Writer) (int64, error) {
	if r.Empty() {
		return 0, nil
	}
	if r.size <= smallReply {
		// Joined in a pooled buffer: w (net/http's response, a bufio
		// writer) copies what it is given before Write returns, so the
		// buffer is free again at once and a warm call allocates none.
		bp := replyBufs.Get().(*[]byte)
		b := r.appendTo((*bp)[:0])
		n, err := w.Write(b)
		*bp = b[:0]
		replyBufs.Put(bp)
		return int64(n), err
	}
	return r.writeParts(w)
}

// replyBufs hold the joined small replies WriteTo writes: at most
// smallReply bytes each, one per answer being written at once.
var replyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// writeParts writes the reply piece by piece, results from where they are.
func (r *Reply) writeParts(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	r.pieces(cw.write)
	return cw.n, cw.err
}

// Bytes is the encoded reply, nil when nothing is owed.
func (r *Reply) Bytes() []byte {
	if r.Empty() {
		return nil
	}
	return r.appendTo(make([]byte, 0, r.Len()))
}

// appendTo appends the encoded reply to b.
func (r *Reply) appendTo(b []byte) []byte {
	r.pieces(func(p []byte) { b = append(b, p...) })
	return b
}

var (
	openBatch, closeBatch, comma, closeObj = []byte{'['}, []byte{']'}, []byte{','}, []byte{'}'}
	respPrefixB, respMiddleB               = []byte(respPrefix), []byte(respMiddle)
)

// pieces gives emit the encoded reply in order: each message encoded, or
// a result's parts around it, in a batch's brackets.
func (r *Reply) pieces(emit func([]byte)) {
	if r.batch {
		emit(openBatch)
	}
	for i, m := range r.msgs {
		if i > 0 {
			emit(comma)
		}
		if e := r.enc[i]; e != nil {
			emit(e)
			continue
		}
		emit(respPrefixB)
		emit(m.ID)
		emit(respMiddleB)
		emit(m.Result)
		emit(closeObj)
	}
	if r.batch {
		emit(closeBatch)
	}
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
}

// Answer answers decoded messages as Handle does, leaving the reply to be
// written (see Reply); nil when nothing is owed.
func (ss *Session) Answer(ctx context.Context, msgs []*jsonrpc.Message, batch bool, emit func(*jsonrpc.Message)) *Reply {
	if emit == nil {
		emit = func(*jsonrpc.Message) {}
	}
	one := func(m *jsonrpc.Message) *Reply { return newReply(false, m) }
	if !batch {
		if len(msgs) != 1 {
			return one(jsonrpc.NewError(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: expected one message")))
		}
		budget := ss.srv.newBudget()
		if r := ss.answerWithin(ctx, budget, msgs[0], emit, false); r != nil {
			return one(r).holding(budget)
		}
		budget.release()
		return nil
	}
	if e := ss.batchRefusal(msgs); e != nil {
		return one(jsonrpc.NewError(nil, e))
	}
	// Requests in a batch run side by side, like separate requests would,
	// a few at a time.
	budget := ss.srv.newBudget()
	replies := ss.runBatch(ctx, msgs, emit, budget)
	var out []*jsonrpc.Message
	for _, r := range replies {
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		budget.release()
		return nil
	}
	return newReply(true, out...).holding(budget)
}

// holding makes r the holder of budget's share of the shared answer pool,
// given back by Release.
func (r *Reply) holding(b *answerBudget) *Reply {
	r.budget = b
	return r
}

// Release gives back what the reply holds of the server's shared answer
// bound (Limits.SharedAnswerBytes); call it once the reply is written or
// dropped. A nil Reply, and a second call, are no-ops.
func (r *Reply) Release() {
	if r != nil {
		r.budget.release()
	}
}
