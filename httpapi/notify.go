package httpapi

import (
	"net/http"
	"sync"

	"github.com/vzn/vx/protocol/jsonrpc"
)

// sendNotification writes m as one event of the stream on w: the one way
// both the 2025 and the 2026 writers send a notification. A JSON-only
// answer (sse false) gets none; an answer already finished gets none.
// finished is read and start (which opens the stream) runs under mu.
func sendNotification(w http.ResponseWriter, sse bool, mu *sync.Mutex, finished *bool, start func(), m *jsonrpc.Message) {
	if !sse {
		return
	}
	b, err := jsonrpc.Encode(m)
	if err != nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if *finished {
		return
	}
	start()
	_ = writeEvent(w, b)
	_ = http.NewResponseController(w).Flush()
}
