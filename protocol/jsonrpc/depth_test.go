package jsonrpc

import (
	"strings"
	"testing"
)

func nested(depth int) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}`
}

// TestDecodeTooDeep: a body nested past maxDepth is refused as too deep
// (-32600), not as "not valid JSON"; one just within it decodes, and a
// bracket inside a string counts for nothing.
func TestDecodeTooDeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		code int
		msg  string
	}{
		{"20000 deep", nested(20000), CodeInvalidRequest, "levels deep"},
		{"just over", nested(maxDepth), CodeInvalidRequest, "levels deep"},
		{"deep batch", "[" + nested(maxDepth) + "]", CodeInvalidRequest, "levels deep"},
		{"invalid stays invalid", `{"a":`, CodeParseError, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, err := Decode([]byte(tc.body))
			if err == nil || msgs != nil {
				t.Fatalf("want a body error, got %d messages", len(msgs))
			}
			if err.Code != tc.code || !strings.Contains(err.Message, tc.msg) {
				t.Fatalf("got %d %q, want %d naming %q", err.Code, err.Message, tc.code, tc.msg)
			}
		})
	}
	// The envelope and params take 3 levels: this one is exactly maxDepth.
	if msgs, _, err := Decode([]byte(nested(maxDepth - 3))); err != nil || msgs[0].Kind() != KindRequest {
		t.Fatalf("a body at the limit: %v", err)
	}
	inString := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"` + strings.Repeat("[{", 5000) + `\""}}`
	if msgs, _, err := Decode([]byte(inString)); err != nil || msgs[0].Kind() != KindRequest {
		t.Fatalf("brackets inside a string: %v", err)
	}
}
