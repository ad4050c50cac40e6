package opkit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/vzn/vx/internal/suggest"
)

// An input's rules are its JSON Schema (InputSchema): the schema decides
// what is accepted, for an agent's arguments and a command line's filled
// input alike, and the explanation below only finds the argument that
// broke it and says, in vx's words, what is accepted there (a schema's
// title, or what its type and enum say) and what was given.

// validateArgs refuses inst, decoded JSON arguments, unless the input
// schema of its type accepts them, naming the innermost argument at fault;
// then a number no float64 holds, which a schema cannot refuse.
func validateArgs(root *jsonschema.Resolved, inst any) error {
	var huge error
	inst = numbers("", inst, &huge)
	if err := root.Validate(inst); err != nil {
		if _, ok := inst.(map[string]any); !ok {
			return Refuse("", "arguments must be a JSON object")
		}
		return explain("", root.Schema(), inst)
	}
	return huge
}

// numbers makes the JSON numbers in v, decoded with UseNumber, float64s
// (jsonschema-go reads a json.Number as a string), one no float64 holds
// an infinity, and sets *huge to the refusal of the first such, at its
// path.
func numbers(path string, v any, huge *error) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil && *huge == nil {
			*huge = Refuse(path, "must be a finite number, not %s", x)
		}
		return f
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x[k] = numbers(join(path, k), x[k], huge)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(fmt.Sprintf("%s[%d]", path, i), e, huge)
		}
	}
	return v
}

var resolvedSubs sync.Map // *jsonschema.Schema → *jsonschema.Resolved (nil: unresolvable)

// accepts reports whether s accepts v, resolving s on its own (a
// subschema of an input's schema, cached: schemas of a type never change).
func accepts(s *jsonschema.Schema, v any) bool {
	r, ok := resolvedSubs.Load(s)
	if !ok {
		rs, err := s.CloneSchemas().Resolve(nil)
		if err != nil {
			rs = nil
		}
		r, _ = resolvedSubs.LoadOrStore(s, rs)
	}
	rs := r.(*jsonschema.Resolved)
	return rs == nil || rs.Validate(v) == nil
}

// explain is the refusal of v, which s does not accept, at path: the
// first argument inside it s refuses, else v itself.
func explain(path string, s *jsonschema.Schema, v any) error {
	if obj, ok := v.(map[string]any); ok && s.Properties != nil {
		if err := explainObject(path, s, obj); err != nil {
			return err
		}
	}
	if list, ok := v.([]any); ok {
		if items := itemsOf(s); items != nil {
			for i, e := range list {
				if !accepts(items, e) {
					return explain(fmt.Sprintf("%s[%d]", path, i), items, e)
				}
			}
		}
	}
	return Refuse(path, "must be %s, not %s", phrase(s), given(s, v))
}

func explainObject(path string, s *jsonschema.Schema, obj map[string]any) error {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sub, ok := s.Properties[k]
		if !ok {
			accepted := "none"
			if len(names) > 0 {
				accepted = strings.Join(names, ", ")
			}
			return Refuse(join(path, k), "no such argument%s (this tool takes: %s)", suggest.Close(k, names), accepted)
		}
		if !accepts(sub, obj[k]) {
			return explain(join(path, k), sub, obj[k])
		}
	}
	for _, r := range s.Required {
		if _, ok := obj[r]; !ok {
			return Refuse(join(path, r), "missing, and required: %s", s.Properties[r].Description)
		}
	}
	return nil
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// itemsOf is the schema of s's array items, s's own or its array
// alternative's.
func itemsOf(s *jsonschema.Schema) *jsonschema.Schema {
	if s.Items != nil {
		return s.Items
	}
	for _, a := range s.AnyOf {
		if a.Items != nil {
			return a.Items
		}
	}
	return nil
}

// phrase says what s accepts: its title, else what its enum or type says.
func phrase(s *jsonschema.Schema) string {
	switch {
	case s.Title != "":
		return s.Title
	case len(s.Enum) > 0:
		quoted := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			quoted[i] = fmt.Sprintf("%q", e)
		}
		return "one of " + strings.Join(quoted, ", ")
	case len(s.AnyOf) > 0:
		alts := make([]string, len(s.AnyOf))
		for i, a := range s.AnyOf {
			alts[i] = phrase(a)
		}
		return strings.Join(alts, " or ")
	}
	switch s.Type {
	case "boolean":
		return "true or false"
	case "number", "integer":
		return "a number"
	case "string":
		return "a non-empty string"
	case "array":
		if s.Items != nil && s.Items.Type == "string" {
			return "an array of non-empty strings"
		}
		return "an array"
	case "object":
		return "an object"
	}
	return "a JSON value"
}

// given says what v is, as a refusal says it: its type when s does not
// take that type at all, else the value itself.
func given(s *jsonschema.Schema, v any) string {
	if !takesType(s, jsonTypeOf(v)) {
		return typeName(v)
	}
	switch x := v.(type) {
	case string:
		if x == "" {
			return "an empty string"
		}
		if strings.TrimSpace(x) == "" {
			return "blanks only"
		}
		return fmt.Sprintf("%q", x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		if len(x) == 0 {
			return "an empty array"
		}
	}
	return typeName(v)
}

func takesType(s *jsonschema.Schema, t string) bool {
	if s.Type == "" && s.Types == nil && s.AnyOf == nil {
		return true
	}
	if s.Type == t || s.Type == "number" && t == "integer" {
		return true
	}
	for _, x := range s.Types {
		if x == t {
			return true
		}
	}
	for _, a := range s.AnyOf {
		if takesType(a, t) {
			return true
		}
	}
	return false
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}
