package mcpserver

import (
	"context"
	"strings"
	"testing"
)

// A request session (one HTTP request of a server that keeps none)
// speaks the revision it is given without an initialize, still answers
// initialize, and is never registered with the server.
func TestRequestSession(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`)
	if got := string(f.srv.RequestSession("2025-03-26").HandleBody(ctx, call, nil)); !strings.Contains(got, `"result"`) || !strings.Contains(got, `{\"a\":1}`) {
		t.Fatalf("tools/call without initialize: %s", got)
	}
	batch := []byte(`[` + string(call) + `,{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	if got := string(f.srv.RequestSession("2025-03-26").HandleBody(ctx, batch, nil)); !strings.HasPrefix(got, "[") || strings.Count(got, `"id"`) != 2 {
		t.Fatalf("batch under 2025-03-26: %s", got)
	}
	if got := string(f.srv.RequestSession("2025-06-18").HandleBody(ctx, batch, nil)); !strings.Contains(got, "batches are accepted only under protocol revision 2025-03-26") {
		t.Fatalf("batch under 2025-06-18: %s", got)
	}
	init := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	ss := f.srv.RequestSession("2025-03-26")
	if got := string(ss.HandleBody(ctx, init, nil)); !strings.Contains(got, `"protocolVersion":"2025-06-18"`) || !strings.Contains(got, `"capabilities":{"tools":{}}`) {
		t.Fatalf("initialize: %s", got)
	}
	if ss.Revision() != "2025-06-18" {
		t.Fatalf("after initialize the session speaks %q", ss.Revision())
	}
	if n := f.srv.Stats().Sessions; n != 0 {
		t.Fatalf("request sessions are not kept: %d sessions", n)
	}
}
