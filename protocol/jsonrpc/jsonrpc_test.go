package jsonrpc

import (
	"encoding/json"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		batch   bool
		errCode int      // whole-body error
		kinds   []Kind   // per element
		ids     []string // per element, raw as echoed
		codes   []int    // Invalid code per element (0 when valid)
	}{
		{name: "request number id", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, kinds: []Kind{KindRequest}, ids: []string{"1"}},
		{name: "request string id", in: `{"jsonrpc":"2.0","id":"a-1","method":"ping","params":{}}`, kinds: []Kind{KindRequest}, ids: []string{`"a-1"`}},
		{name: "number id kept raw", in: `{"jsonrpc":"2.0","id":1.50e3,"method":"x"}`, kinds: []Kind{KindRequest}, ids: []string{"1.50e3"}},
		{name: "array params", in: `{"jsonrpc":"2.0","id":2,"method":"x","params":[1]}`, kinds: []Kind{KindRequest}, ids: []string{"2"}},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kinds: []Kind{KindNotification}, ids: []string{""}},
		{name: "result", in: `{"jsonrpc":"2.0","id":3,"result":{}}`, kinds: []Kind{KindResponse}, ids: []string{"3"}},
		{name: "error with null id", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, kinds: []Kind{KindResponse}, ids: []string{"null"}},
		{name: "parse error", in: `{"jsonrpc":`, errCode: CodeParseError},
		{name: "not json", in: `hello`, errCode: CodeParseError},
		{name: "empty body", in: ``, errCode: CodeParseError},
		{name: "empty batch", in: `[]`, batch: true, errCode: CodeInvalidRequest},
		{name: "wrong version", in: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, kinds: []Kind{KindInvalid}, ids: []string{"7"}, codes: []int{CodeInvalidRequest}},
		{name: "missing version", in: `{"id":7,"method":"ping"}`, kinds: []Kind{KindInvalid}, ids: []string{"7"}, codes: []int{CodeInvalidRequest}},
		{name: "method not string", in: `{"jsonrpc":"2.0","id":"q","method":1}`, kinds: []Kind{KindInvalid}, ids: []string{`"q"`}, codes: []int{CodeInvalidRequest}},
		{name: "id object", in: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, kinds: []Kind{KindInvalid}, ids: []string{"null"}, codes: []int{CodeInvalidRequest}},
		{name: "id null on request", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, kinds: []Kind{KindInvalid}, ids: []string{"null"}, codes: []int{CodeInvalidRequest}},
		{name: "params string", in: `{"jsonrpc":"2.0","id":1,"method":"x","params":"a"}`, kinds: []Kind{KindInvalid}, ids: []string{"1"}, codes: []int{CodeInvalidRequest}},
		{name: "params null", in: `{"jsonrpc":"2.0","id":1,"method":"x","params":null}`, kinds: []Kind{KindInvalid}, ids: []string{"1"}, codes: []int{CodeInvalidRequest}},
		{name: "scalar", in: `42`, kinds: []Kind{KindInvalid}, ids: []string{"null"}, codes: []int{CodeInvalidRequest}},
		{name: "result and error", in: `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`, kinds: []Kind{KindInvalid}, ids: []string{"1"}, codes: []int{CodeInvalidRequest}},
		{name: "bad error object", in: `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, kinds: []Kind{KindInvalid}, ids: []string{"1"}, codes: []int{CodeInvalidRequest}},
		{
			name:  "batch mixed",
			in:    `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},1,{"jsonrpc":"2.0","id":"z","result":null}]`,
			batch: true,
			kinds: []Kind{KindRequest, KindNotification, KindInvalid, KindResponse},
			ids:   []string{"1", "", "null", `"z"`},
			codes: []int{0, 0, CodeInvalidRequest, 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, batch, err := Decode([]byte(tc.in))
			if batch != tc.batch {
				t.Errorf("batch = %v, want %v", batch, tc.batch)
			}
			if tc.errCode != 0 {
				if err == nil || err.Code != tc.errCode {
					t.Fatalf("err = %v, want code %d", err, tc.errCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(msgs) != len(tc.kinds) {
				t.Fatalf("got %d messages, want %d", len(msgs), len(tc.kinds))
			}
			for i, m := range msgs {
				if m.Kind() != tc.kinds[i] {
					t.Errorf("msg %d kind = %v, want %v", i, m.Kind(), tc.kinds[i])
				}
				if string(m.ID) != tc.ids[i] {
					t.Errorf("msg %d id = %q, want %q", i, m.ID, tc.ids[i])
				}
				code := 0
				if m.Invalid != nil {
					code = m.Invalid.Code
				}
				if tc.codes != nil && code != tc.codes[i] {
					t.Errorf("msg %d invalid code = %d, want %d", i, code, tc.codes[i])
				}
			}
		})
	}
}

func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		msg  *Message
		want string
	}{
		{"request", &Message{ID: json.RawMessage(`"a"`), Method: "ping"}, `{"jsonrpc":"2.0","id":"a","method":"ping"}`},
		{"notification", &Message{Method: "n", Params: json.RawMessage(`{}`)}, `{"jsonrpc":"2.0","method":"n","params":{}}`},
		{"result", &Message{ID: json.RawMessage(`1.0`), Result: json.RawMessage(`{}`)}, `{"jsonrpc":"2.0","id":1.0,"result":{}}`},
		{"null result", &Message{ID: json.RawMessage(`1`)}, `{"jsonrpc":"2.0","id":1,"result":null}`},
		{"html kept", &Message{ID: json.RawMessage(`"<&>"`), Method: "a<b"}, `{"jsonrpc":"2.0","id":"<&>","method":"a<b"}`},
		{"error null id", NewError(nil, Errorf(CodeParseError, "bad")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// FuzzDecode checks that Decode never panics, that every valid message
// survives an encode/decode round trip with the same kind and id, and that
// every refusal can be encoded as an answer.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","method":"n"}]`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`[]`, `[1]`, `{"jsonrpc":"1.0"}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, _, derr := Decode(data)
		if derr != nil {
			if msgs != nil {
				t.Fatalf("messages returned with a body error")
			}
			if _, err := Encode(NewError(nil, derr)); err != nil {
				t.Fatalf("encoding body error: %v", err)
			}
			return
		}
		for _, m := range msgs {
			if m.Kind() == KindInvalid {
				out, err := Encode(NewError(m.ID, m.Invalid))
				if err != nil || !json.Valid(out) {
					t.Fatalf("encoding refusal: %v", err)
				}
				continue
			}
			out, err := Encode(m)
			if err != nil {
				t.Fatalf("encoding %v: %v", m.Kind(), err)
			}
			again, batch, derr := Decode(out)
			if derr != nil || batch || len(again) != 1 {
				t.Fatalf("re-decoding %s: %v", out, derr)
			}
			if again[0].Kind() != m.Kind() || string(again[0].ID) != string(m.ID) {
				t.Fatalf("round trip changed %s: kind %v→%v id %s→%s", out, m.Kind(), again[0].Kind(), m.ID, again[0].ID)
			}
		}
	})
}
