package opkit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestArgumentsTooWideForTheirSchemaAreRefused: the declared bound
// counts the schemas applied along one path of the arguments, so a
// schema well within it (an anyOf of 1,000 consts) applied to each item
// of a long list did its work once an item: 20,000 items, 140 KB, took
// 34 s of a core. A call whose arguments would have more than
// maxArgsWork schemas applied is refused, saying so, before any is; a
// short list is checked as ever, its wrong value refused.
func TestArgumentsTooWideForTheirSchemaAreRefused(t *testing.T) {
	var alts []string
	for i := range 1000 {
		alts = append(alts, fmt.Sprintf(`{"const":"p%d"}`, i))
	}
	schema := json.RawMessage(`{"type":"object","properties":{"xs":{"type":"array","items":{"anyOf":[` + strings.Join(alts, ",") + `]}}}}`)
	if _, err := ResolveSchema(schema); err != nil {
		t.Fatalf("an anyOf of 1,000 consts is refused when declared: %v", err)
	}
	list := func(n int, item string) json.RawMessage {
		return json.RawMessage(`{"xs":[` + strings.TrimSuffix(strings.Repeat(`"`+item+`",`, n), ",") + `]}`)
	}
	err := CheckArgs(list(2*maxArgsWork/1000, "p999"), schema)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d schemas", maxArgsWork)) {
		t.Errorf("a list whose check applies twice maxArgsWork schemas: %v, want a refusal saying why", err)
	}
	if err := CheckArgs(list(10, "p999"), schema); err != nil {
		t.Errorf("a short list: %v", err)
	}
	if err := CheckArgs(list(10, "q"), schema); err == nil {
		t.Error("a short list of a value no alternative takes was taken")
	}
}
