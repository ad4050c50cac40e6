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

// TestASchemaReferringIntoItselfIsFollowed: a $ref that is a JSON pointer
// into the schema (not only into $defs) or an $anchor is followed, for
// loops as for arguments: a loop through one is refused, a reference
// that ends is taken and checks its arguments, refused with their path.
func TestASchemaReferringIntoItselfIsFollowed(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/properties/a"}]}}}`,
		`{"type":"object","properties":{"a":{"$anchor":"A","not":{"$ref":"#A"}}}}`,
		`{"type":"object","allOf":[{"$ref":"#/properties/b"}],"properties":{"b":{"$ref":"#/allOf/0"}}}`,
	} {
		if _, err := ResolveSchema(json.RawMessage(s)); err == nil || !strings.Contains(err.Error(), "$refs loop") {
			t.Errorf("%s: taken (%v)", s, err)
		}
	}
	cases := []struct{ schema, args, want string }{
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}`, `{"b":3}`, `argument "b"`},
		{`{"type":"object","allOf":[{"type":"object"}],"properties":{"a":{"$ref":"#/allOf/0"},"n":{"type":"integer"}}}`, `{"a":{"b":1},"n":"x"}`, `"n": must be an integer`},
		{`{"type":"object","$defs":{"s":{"$anchor":"str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`, `{"a":1}`, `argument "a"`},
	}
	for _, c := range cases {
		err := CheckArgs(json.RawMessage(c.args), json.RawMessage(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s against %s: %v; want %s", c.args, c.schema, err, c.want)
		}
	}
}
