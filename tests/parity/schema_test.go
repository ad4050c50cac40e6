//go:build !windows

package parity_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// schemas holds each session's tools' output schemas, resolved once.
var schemas sync.Map // *mcp.ClientSession → map[string]*jsonschema.Resolved

// outputSchemas resolves the outputSchema of every tool cs lists.
func outputSchemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	if m, ok := schemas.Load(cs); ok {
		return m.(map[string]*jsonschema.Resolved)
	}
	out := map[string]*jsonschema.Resolved{}
	for tl, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if tl.OutputSchema == nil {
			continue
		}
		b, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s's outputSchema is no JSON Schema: %v\n%s", tl.Name, err, b)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s's outputSchema does not resolve: %v\n%s", tl.Name, err, b)
		}
		out[tl.Name] = rs
	}
	schemas.Store(cs, out)
	return out
}

// conforms fails the test unless the tool lists an outputSchema and its
// answer (decoded JSON) is valid under it: MCP has a server's structured
// results conform to the schema it declares, and clients may check.
func conforms(t *testing.T, cs *mcp.ClientSession, tool string, answer any) {
	t.Helper()
	rs, ok := outputSchemas(t, cs)[tool]
	if !ok {
		t.Errorf("%s lists no outputSchema", tool)
		return
	}
	if err := rs.Validate(answer); err != nil {
		t.Errorf("%s's answer does not conform to its outputSchema: %v\n%s", tool, err, indent(answer))
	}
}
