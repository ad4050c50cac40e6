package opkit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestASchemaWhoseAlternativesMultiplyIsRefused: a data schema whose
// anyOf alternatives each recurse makes a check of arguments nested to
// MaxArgsDepth apply alternatives to the power of the depth schemas
// (eight took 2 s of a core a call): it is refused when resolved, with
// why, and so is every call of a tool declaring it; two alternatives, and
// a wide but flat schema, are taken and check arguments as ever.
func TestASchemaWhoseAlternativesMultiplyIsRefused(t *testing.T) {
	recursive := func(k int) json.RawMessage {
		alts := strings.TrimSuffix(strings.Repeat(`{"$ref":"#"},`, k), ",")
		return json.RawMessage(`{"type":"object","properties":{"k":{"anyOf":[` + alts + `]}}}`)
	}
	nested := json.RawMessage(strings.Repeat(`{"k":`, MaxArgsDepth-1) + `{}` + strings.Repeat("}", MaxArgsDepth-1))
	for _, k := range []int{8, 16} {
		_, err := ResolveSchema(recursive(k))
		if err == nil || !strings.Contains(err.Error(), "anyOf/oneOf alternatives recurse") {
			t.Errorf("%d recursing alternatives resolved: %v", k, err)
			continue // (a check against it would take seconds to minutes)
		}
		if err := CheckArgs(nested, recursive(k)); err == nil {
			t.Errorf("%d recursing alternatives: arguments checked against it", k)
		}
	}
	if err := CheckArgs(nested, recursive(2)); err != nil {
		t.Errorf("two recursing alternatives: %v", err)
	}
	var props []string
	for i := range 300 {
		props = append(props, fmt.Sprintf(`"p%d":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}`, i))
	}
	wide := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	if err := CheckArgs(json.RawMessage(`{"p1":["a"],"p299":"b"}`), wide); err != nil {
		t.Errorf("a wide, flat schema: %v", err)
	}
	if err := CheckArgs(json.RawMessage(`{"p1":3}`), wide); err == nil {
		t.Error("a wide, flat schema took an argument of the wrong type")
	}
}
