package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
)

// A Reply writes exactly what jsonrpc.Encode gives for its message or
// batch, and says its length.
func TestReplyIsTheEncoding(t *testing.T) {
	enc, err := EncodeResult(map[string]any{"a": "x<y>&\u2028", "n": []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []*jsonrpc.Message{
		{ID: json.RawMessage(`1`), Result: json.RawMessage(enc)},
		{ID: json.RawMessage(`"s"`), Result: json.RawMessage(`{}`)},
		jsonrpc.NewError(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "bad <thing> & more")),
		jsonrpc.NewError(json.RawMessage(`7`), &jsonrpc.Error{Code: -32000, Message: "m", Data: json.RawMessage(`{"k":[1,2]}`)}),
		{ID: json.RawMessage(`2`)}, // a response with no result: encoded, not joined
		{ID: json.RawMessage(`3`), Result: json.RawMessage(`"` + strings.Repeat("x", smallReply) + `"`)}, // written in parts
	}
	check := func(name string, r *Reply, want []byte) {
		t.Helper()
		var buf bytes.Buffer
		n, err := r.WriteTo(&buf)
		if err != nil || int(n) != buf.Len() {
			t.Fatalf("%s: WriteTo %d, %v", name, n, err)
		}
		if !bytes.Equal(buf.Bytes(), want) || !bytes.Equal(r.Bytes(), want) || r.Len() != len(want) {
			t.Errorf("%s: wrote %s (Len %d), jsonrpc.Encode gives %s", name, buf.Bytes(), r.Len(), want)
		}
	}
	for _, m := range msgs {
		want, err := jsonrpc.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		check(string(want), newReply(false, m), want)
	}
	want, err := jsonrpc.Encode(msgs)
	if err != nil {
		t.Fatal(err)
	}
	check("batch", newReply(true, msgs...), want)
	var none *Reply
	if !none.Empty() || none.Bytes() != nil || none.Len() != 0 {
		t.Error("a nil Reply is not empty")
	}
}
