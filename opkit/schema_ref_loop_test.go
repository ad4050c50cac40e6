package opkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestASchemaWhoseRefsLoopIsRefused: a data schema (a plugin verb's
// inputSchema) whose $refs, or allOf/anyOf/oneOf/not/if/then/else
// through them, come back to a schema on the same value would be
// followed for ever by a check of arguments: the process dies of a stack
// overflow (vxd, on an MCP tool call). ResolveSchema refuses it; a
// schema that recurses through a property (each step one level into the
// value) is taken, and its arguments are checked.
func TestASchemaWhoseRefsLoopIsRefused(t *testing.T) {
	loops := []string{
		`{"type":"object","$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`,
		`{"type":"object","$ref":"#"}`,
		`{"type":"object","$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/definitions/b"}]}},"definitions":{"b":{"allOf":[{"not":{"$ref":"#/definitions/b"}}]}}}`,
		`{"type":"object","$defs":{"c":{"if":{"$ref":"#/$defs/c"}}},"properties":{"a":{"$ref":"#/$defs/c"}}}`,
	}
	for _, s := range loops {
		if _, err := ResolveSchema(json.RawMessage(s)); err == nil || !strings.Contains(err.Error(), "$ref") {
			t.Errorf("%s: taken (%v)", s, err)
		}
	}
	tree := `{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#"}},"next":{"$ref":"#/$defs/node"}},` +
		`"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}},"additionalProperties":false}}}`
	if _, err := ResolveSchema(json.RawMessage(tree)); err != nil {
		t.Fatalf("a schema recursing through properties is refused: %v", err)
	}
	if err := CheckArgs(json.RawMessage(`{"name":"a","kids":[{"name":"b","kids":[]}],"next":{"next":{}}}`), json.RawMessage(tree)); err != nil {
		t.Fatalf("good arguments refused: %v", err)
	}
	if err := CheckArgs(json.RawMessage(`{"next":{"next":{"x":1}}}`), json.RawMessage(tree)); err == nil {
		t.Fatal("bad arguments taken")
	}
}
