package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
)

// TestListenEndsGracefully: closing the server answers an open
// subscriptions/listen with a complete result tagged with its id, after
// the acknowledgement.
func TestListenEndsGracefully(t *testing.T) {
	f := newFixture(t, nil)
	acked := make(chan *jsonrpc.Message, 1)
	reply := make(chan string, 1)
	m := mustDecode(t,
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"promptsListChanged":true},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	go func() {
		reply <- string(f.srv.HandleStateless(context.Background(), m, func(n *jsonrpc.Message) { acked <- n }))
	}()
	if ack := <-acked; ack.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(string(ack.Params), `"promptsListChanged":true`) {
		t.Fatalf("acknowledgement %s %s", ack.Method, ack.Params)
	}
	f.srv.Close()
	got := <-reply
	if !strings.Contains(got, `"id":"L"`) || !strings.Contains(got, `"resultType":"complete"`) || !strings.Contains(got, `"io.modelcontextprotocol/subscriptionId":"L"`) {
		t.Errorf("closing answered %s", got)
	}
}
