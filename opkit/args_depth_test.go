package opkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDeepArgumentsAreRefusedBeforeTheirCheck: arguments nested past
// MaxArgsDepth are refused with the depth named, before a schema whose
// anyOf alternatives each recurse is checked against them (work that
// doubles with each level); at the bound they are checked as ever, and a
// bracket inside a string does not count.
func TestDeepArgumentsAreRefusedBeforeTheirCheck(t *testing.T) {
	rec := json.RawMessage(`{"type":"object","properties":{"k":{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}}}`)
	nest := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"k":`, n-1) + `{}` + strings.Repeat("}", n-1))
	}
	if err := CheckArgs(nest(MaxArgsDepth), rec); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	err := CheckArgs(nest(40), rec)
	if err == nil || !strings.Contains(err.Error(), "nest 40 levels deep") {
		t.Fatalf("40 levels: %v", err)
	}
	if err := CheckArgs(json.RawMessage(`{"k":{"s":"[[[[[[[[[[[[{{{{{{{{\"[["}}`), json.RawMessage(`{"type":"object"}`)); err != nil {
		t.Fatalf("brackets in a string counted: %v", err)
	}
}
