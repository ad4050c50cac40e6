package opkit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type jsonPathInner struct {
	Tasks []string `json:"tasks"`
}

type jsonPathDoc struct {
	jsonPathInner
	Items []*struct {
		jsonPathInner
		N int `json:"n"`
	} `json:"items"`
}

// TestJSONErrorNamesJSONKeys: a wrongly typed value is named by its JSON
// keys, through pointers, slices and embedded structs, never by the Go
// name of an embedded struct; other errors keep their wording.
func TestJSONErrorNamesJSONKeys(t *testing.T) {
	for doc, want := range map[string]string{
		`{"tasks": "x"}`:                      "jsonPathDoc.tasks of type []string",
		`{"items": [{"n": "x"}]}`:             ".items.n of type int",
		`{"items": [{"tasks": [1]}]}`:         ".items.tasks of type string",
		`{"items": [{"tasks": "x", "n": 1}]}`: ".items.tasks of type []string",
	} {
		var d jsonPathDoc
		err := json.Unmarshal([]byte(doc), &d)
		got := JSONError(err, &d)
		if err == nil || !strings.Contains(got, want) || strings.Contains(got, "jsonPathInner") {
			t.Errorf("%s: %q; want it to name %q", doc, got, want)
		}
	}
	if got := JSONError(errors.New("unexpected EOF"), &jsonPathDoc{}); got != "unexpected EOF" {
		t.Errorf("a syntax error: %q; want its own wording", got)
	}
}
