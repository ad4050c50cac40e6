package opkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestARefusalUnderASelfReferenceIsWorded: a schema that refers to its
// root ("$ref": "#", directly or through $defs) to describe nested
// objects refuses a bad nested argument with the words of any other
// refusal. The explanation checked parts of the arguments against the
// subschema taken as a root of its own, where "#" named itself: it
// recursed until the stack overflowed (a fatal error: vxd died on one
// tools/call with a bad argument).
func TestARefusalUnderASelfReferenceIsWorded(t *testing.T) {
	cases := []struct{ schema, args, want string }{
		{`{"type":"object","properties":{"a":{"$ref":"#"},"n":{"type":"integer","maximum":3}},"additionalProperties":false}`,
			`{"a":{"a":{"n":9}}}`, `"a.a.n": 9 is more than the maximum 3`},
		{`{"type":"object","$defs":{"kid":{"anyOf":[{"type":"null"},{"$ref":"#"}]}},"properties":{"k":{"$ref":"#/$defs/kid"},"s":{"type":"string"}},"required":["s"]}`,
			`{"s":"x","k":{"s":2}}`, `"k.s": must be a string, not a number`},
		{`{"type":"object","definitions":{"kids":{"type":"array","items":{"$ref":"#"}}},"properties":{"kids":{"$ref":"#/definitions/kids"},"n":{"type":"integer"}}}`,
			`{"kids":[{"n":1},{"n":"x"}]}`, `"kids[1].n"`},
	}
	for _, c := range cases {
		err := CheckArgs(json.RawMessage(c.args), json.RawMessage(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s against %s: %v; want %s", c.args, c.schema, err, c.want)
		}
	}
}
