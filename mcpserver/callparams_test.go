package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

var callParamCases = []string{
	`{"name":"listTasks","arguments":{"project":"pkg-0500"}}`,
	`{"arguments":{"a":[1,"}"]},"name":"x","other":{"name":"y"}}`,
	`{"name":"a","name":"b"}`,
	`{"NAME":"upper","arguments":{}}`,
	`{"name":"a","Arguments":{"b":1}}`,
	`{"n\u0061me":"escaped"}`,
	`{"name":"x","_meta":{"progressToken":"t"}}`,
	`{"name":"x","_META":{"progressToken":1}}`,
	`{"name":"x","_meta":5}`,
	`{"nameé":"x","name":"y"}`,
	`{"name":null,"arguments":null}`,
	`{}`,
}

func sameCallParams(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := readCallParams(data)
	var want callParams
	wantErr := json.Unmarshal(data, &want)
	if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got.Name, want.Name) || !bytes.Equal(got.Arguments, want.Arguments) ||
		(got.Meta == nil) != (want.Meta == nil) || (got.Meta != nil && !bytes.Equal(got.Meta.ProgressToken, want.Meta.ProgressToken)) {
		t.Fatalf("%s: read %+v, %v; json.Unmarshal %+v, %v", data, got, gotErr, want, wantErr)
	}
}

// readCallParams's shortcut reads what json.Unmarshal would.
func TestReadCallParamsAgreesWithTheDecoder(t *testing.T) {
	for _, c := range callParamCases {
		sameCallParams(t, []byte(c))
	}
}

func FuzzReadCallParams(f *testing.F) {
	for _, c := range callParamCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.TrimSpace(data)
		if !json.Valid(data) || len(data) == 0 || data[0] != '{' {
			return // callTool reads only object params of a decoded body
		}
		sameCallParams(t, data)
	})
}
