package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// allMethods is every request method of either era, and one of neither.
var allMethods = []string{
	mcp.MethodInitialize, mcp.MethodPing, mcp.MethodSetLevel, mcp.MethodSubscribe, mcp.MethodUnsubscribe,
	mcp.MethodDiscover, mcp.MethodSubscriptionsListen, mcp.MethodToolsList, mcp.MethodToolsCall,
	mcp.MethodResourcesList, mcp.MethodResourceTemplates, mcp.MethodResourcesRead, mcp.MethodPromptsList,
	mcp.MethodPromptsGet, mcp.MethodComplete, "tools/frobnicate",
}

// The server answers in each era exactly the methods protocol/mcp's one
// list gives that era, and "method not found" (-32601) for the others.
func TestEachEraAnswersItsMethods(t *testing.T) {
	f := newFixture(t, nil)
	for _, method := range allMethods {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{}}`
		ss := initSession(t, f.srv, mcp.Rev20251125, nil)
		got := string(ss.HandleBody(context.Background(), []byte(body), nil))
		if notFound := strings.Contains(got, `"code":-32601`); notFound == mcp.Answers(mcp.SessionEra, method) {
			t.Errorf("session era, %s: answered %s; the method list says the era has it: %v", method, got, notFound)
		}

		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		m := mustDecode(t, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+meta+`}}`)
		ctx, cancel := context.WithCancel(context.Background())
		// A listen stream is answered once acknowledged; ending it then
		// leaves the request owed nothing.
		got = string(f.srv.HandleStateless(ctx, m, func(*jsonrpc.Message) { cancel() }))
		cancel()
		if notFound := strings.Contains(got, `"code":-32601`); notFound == mcp.Answers(mcp.StatelessEra, method) {
			t.Errorf("stateless era, %s: answered %q; the method list says the era has it: %v", method, got, notFound)
		}
	}
}
