package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// viaMap reads the envelope members the general way, decoding into a
// map: what scanMembers must agree with.
func viaMap(t *testing.T, data []byte) members {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	var f members
	for k, v := range m {
		f.set([]byte(k), v)
	}
	return f
}

func sameMembers(a, b members) bool {
	if a.has != b.has {
		return false
	}
	for i := range a.vals {
		if !bytes.Equal(a.vals[i], b.vals[i]) {
			return false
		}
	}
	return true
}

var memberCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	` { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "tools/call" , "params" : { "name" : "x", "arguments": {"a":[1,{"b":"}"}]} } } `,
	`{"id":1,"id":2,"jsonrpc":"2.0","method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":-1.5e3,"result":[true,false,null,"]"]}`,
	`{"\u0069d":7,"jsonrpc":"2.0","method":"m"}`,
	`{"other":{"id":9},"jsonrpc":"2.0","method":"m\u00e9"}`,
	`{}`, `{"":""}`, `{"method":"a\tb","jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","method":"é","params":[],"id":"ü"}`,
}

func TestScanMembersAgreesWithTheDecoder(t *testing.T) {
	for _, c := range memberCases {
		got, err := readMembers([]byte(c))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if want := viaMap(t, []byte(c)); !sameMembers(got, want) {
			t.Errorf("%s: scanned %+v, the decoder reads %+v", c, got, want)
		}
	}
}

// The members keep nothing of the caller's buffer: the shim decodes lines
// a scanner reuses.
func TestMembersAreCopied(t *testing.T) {
	buf := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1}}`)
	f, err := readMembers(buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'x'
	}
	if p, _ := f.get("params"); string(p) != `{"a":1}` {
		t.Fatalf("params changed with the buffer: %s", p)
	}
}

func TestStringValueAgreesWithTheDecoder(t *testing.T) {
	for _, c := range []string{`"2.0"`, `"a\"b"`, `"t\u006fp"`, "\"\xff\"", "\"a\tb\"", `"é"`, `""`, `null`, `1`} {
		var a, b string
		errA := stringValue(json.RawMessage(c), &a)
		errB := json.Unmarshal([]byte(c), &b)
		if a != b || (errA == nil) != (errB == nil) {
			t.Errorf("%s: stringValue %q, %v; json.Unmarshal %q, %v", c, a, errA, b, errB)
		}
	}
}

func FuzzScanMembers(f *testing.F) {
	for _, c := range memberCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || jsonType(bytes.TrimSpace(data)) != '{' {
			return
		}
		got, ok := scanMembers(data)
		if !ok {
			return // the general decoder reads it
		}
		if want := viaMap(t, data); !sameMembers(got, want) {
			t.Fatalf("%q: scanned %+v, the decoder reads %+v", data, got, want)
		}
	})
}
