package opkit

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// An input schema may also come as data rather than from a Go type: a
// plugin's verb declares its own (docs/plugins.md). Its arguments get the
// same checks as every operation's, in the same order: the text of every
// string, then the schema, refusing with the argument named.

// resolvedSchemas keeps each data schema resolved, by its text.
var resolvedSchemas sync.Map // string → *jsonschema.Resolved

// ResolveSchema resolves a JSON Schema given as data, refusing one that
// is not an object schema jsonschema-go can resolve.
func ResolveSchema(schema json.RawMessage) (*jsonschema.Resolved, error) {
	if r, ok := resolvedSchemas.Load(string(schema)); ok {
		return r.(*jsonschema.Resolved), nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %v", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("an input schema must be of type \"object\", not %q", s.Type)
	}
	if err := checkRefs(&s); err != nil {
		return nil, err
	}
	if err := checkWork(&s); err != nil {
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	resolvedSchemas.Store(string(schema), r)
	return r, nil
}

// MaxArgsDepth bounds how deep the arguments of a tool whose schema is
// data (a plugin verb's) nest: checking them against a schema whose
// anyOf/oneOf alternatives each recurse visits every alternative at every
// level, so the work grows as their number to the power of the depth
// (two alternatives at 20 levels took 9 s of a core).
const MaxArgsDepth = 8

// jsonDepth is the deepest nesting of objects and arrays in raw (strings
// skipped, escapes included); raw need not be valid.
func jsonDepth(raw []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// CheckArgs refuses raw, a JSON object of arguments, unless schema (as
// ResolveSchema takes it) accepts it: DecodeInput's checks for an input
// whose schema is data.
func CheckArgs(raw json.RawMessage, schema json.RawMessage) error {
	r, err := ResolveSchema(schema)
	if err != nil {
		return err
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := CheckArgsText(raw); err != nil {
		return err
	}
	if d := jsonDepth(raw); d > MaxArgsDepth {
		return Refuse("", "arguments nest %d levels deep; a tool whose schema is data takes at most %d", d, MaxArgsDepth)
	}
	obj, err := argsObject(raw)
	if err != nil || obj == nil {
		return Refuse("", "arguments must be a JSON object")
	}
	return validateArgs(r, obj, false)
}
