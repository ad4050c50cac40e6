package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/vzn/vx/daemon/workspace"
)

// Kind is the JSON shape an argument accepts.
type Kind int

const (
	KindString    Kind = iota // a non-empty string
	KindTaskID                // "project#task"
	KindRunID                 // a non-empty run id or prefix
	KindBool                  //
	KindLimit                 // a finite number; clamped by the operation
	KindStrings               // an array of non-empty strings
	KindFilter                // a non-empty string or an array of them
	KindEnum                  // one of Enum
	KindObject                // an object with Props
	KindBoolOrRef             // true/false or a git ref (affected)
	KindTasks                 // an array of task names or ids, none starting with "-"
)

// Arg declares one argument: it drives both the inputSchema and the check.
type Arg struct {
	Name     string
	Kind     Kind
	Desc     string
	Required bool
	Enum     []string
	Props    []Arg
}

// schema renders the JSON Schema of a list of arguments.
func schema(args []Arg) json.RawMessage {
	b, _ := json.Marshal(objectSchema(args))
	return b
}

func objectSchema(args []Arg) map[string]any {
	props := map[string]any{}
	var req []string
	for _, a := range args {
		props[a.Name] = argSchema(a)
		if a.Required {
			req = append(req, a.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

func argSchema(a Arg) map[string]any {
	var s map[string]any
	switch a.Kind {
	case KindString, KindRunID:
		s = map[string]any{"type": "string", "minLength": 1}
	case KindTaskID:
		s = map[string]any{"type": "string", "pattern": "^.+#[^#]+$"}
	case KindBool:
		s = map[string]any{"type": "boolean"}
	case KindLimit:
		s = map[string]any{"type": "number"}
	case KindStrings:
		s = map[string]any{"type": "array", "items": map[string]any{"type": "string", "minLength": 1}}
	case KindFilter:
		s = map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "minLength": 1},
			map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string", "minLength": 1}},
		}}
	case KindTasks:
		s = map[string]any{"type": "array", "items": map[string]any{"type": "string", "minLength": 1, "pattern": "^[^-]"}}
	case KindEnum:
		s = map[string]any{"type": "string", "enum": a.Enum}
	case KindObject:
		s = objectSchema(a.Props)
	case KindBoolOrRef:
		s = map[string]any{"anyOf": []any{map[string]any{"type": "boolean"}, map[string]any{"type": "string", "minLength": 1, "pattern": "^[^-]"}}}
	}
	if a.Desc != "" {
		s["description"] = a.Desc
	}
	return s
}

// argError is a refusal naming the argument; the MCP layer turns it into
// an isError result.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func refuse(format string, a ...any) error { return &argError{fmt.Sprintf(format, a...)} }

// Values is a checked argument object.
type Values map[string]any

func (v Values) Str(name string) string {
	s, _ := v[name].(string)
	return s
}

func (v Values) Has(name string) bool { _, ok := v[name]; return ok }

func (v Values) Bool(name string) bool {
	b, _ := v[name].(bool)
	return b
}

func (v Values) Limit(name string) int {
	f, ok := v[name].(float64)
	if !ok {
		return 0
	}
	// Clamp huge values before converting; the operation clamps to its range.
	if f > 1e9 {
		return 1e9
	}
	if f < -1e9 {
		return -1e9
	}
	return int(math.Round(f))
}

func (v Values) Strings(name string) []string {
	switch x := v[name].(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, e.(string))
		}
		return out
	}
	return nil
}

func (v Values) Object(name string) Values {
	o, _ := v[name].(map[string]any)
	return Values(o)
}

// check decodes raw (a JSON object) against args: unknown keys, wrong
// types, empty strings, half task ids and non-finite numbers are refused
// with one line naming the argument. Nothing is coerced.
func check(raw json.RawMessage, args []Arg) (Values, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, refuse("arguments must be a JSON object")
	}
	return checkObject("", obj, args)
}

func checkObject(prefix string, obj map[string]any, args []Arg) (Values, error) {
	known := map[string]Arg{}
	var names []string
	for _, a := range args {
		known[a.Name] = a
		names = append(names, a.Name)
	}
	sort.Strings(names)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := Values{}
	for _, k := range keys {
		a, ok := known[k]
		if !ok {
			accepted := "none"
			if len(names) > 0 {
				accepted = strings.Join(names, ", ")
			}
			return nil, refuse("unknown argument %q%s (this tool takes: %s)", prefix+k, workspace.CloseHint(k, names), accepted)
		}
		val, err := checkValue(prefix+k, obj[k], a)
		if err != nil {
			return nil, err
		}
		out[k] = val
	}
	for _, a := range args {
		if a.Required {
			if _, ok := obj[a.Name]; !ok {
				return nil, refuse("missing required argument %q: %s", prefix+a.Name, a.Desc)
			}
		}
	}
	return out, nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func checkValue(name string, v any, a Arg) (any, error) {
	nonEmpty := func(s any, what string) (string, error) {
		str, ok := s.(string)
		if !ok {
			return "", refuse("argument %q must be %s, not %s", name, what, typeName(s))
		}
		if strings.TrimSpace(str) == "" {
			return "", refuse("argument %q must be %s, not an empty string", name, what)
		}
		return str, nil
	}
	switch a.Kind {
	case KindString:
		return nonEmpty(v, "a non-empty string")
	case KindRunID:
		return nonEmpty(v, "a run id or a unique prefix of one")
	case KindTaskID:
		s, err := nonEmpty(v, "a task id project#task (e.g. web#build)")
		if err != nil {
			return nil, err
		}
		if p, t, ok := workspace.SplitTaskID(s); !ok || strings.TrimSpace(p) == "" || strings.TrimSpace(t) == "" {
			return nil, refuse("argument %q: %q is missing a half; use project#task, e.g. web#build", name, s)
		}
		return s, nil
	case KindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, refuse("argument %q must be true or false, not %s", name, typeName(v))
		}
		return b, nil
	case KindLimit:
		n, ok := v.(json.Number)
		if !ok {
			return nil, refuse("argument %q must be a finite number, not %s", name, typeName(v))
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, refuse("argument %q must be a finite number, not %s", name, n.String())
		}
		return f, nil
	case KindStrings, KindFilter, KindTasks:
		if s, ok := v.(string); ok && a.Kind == KindFilter {
			return nonEmpty(s, "a non-empty string or an array of them")
		}
		list, ok := v.([]any)
		if !ok {
			what := "an array of non-empty strings"
			if a.Kind == KindFilter {
				what = "a non-empty string or an array of them"
			}
			return nil, refuse("argument %q must be %s, not %s", name, what, typeName(v))
		}
		if len(list) == 0 && a.Kind == KindFilter {
			// An empty selection is no selection: refuse it rather than
			// read it as "every project".
			return nil, refuse("argument %q is an empty array: name at least one project selector, or omit %s to select every project", name, name)
		}
		for i, e := range list {
			if _, err := nonEmpty(e, "a non-empty string"); err != nil {
				return nil, refuse("argument %s[%d] must be a non-empty string, not %s", name, i, describe(e))
			}
			if str := e.(string); a.Kind == KindTasks && strings.HasPrefix(str, "-") {
				return nil, refuse("argument %s[%d] %q starts with \"-\": a task is a name such as build or web#build, never a flag (force, filter and affected are arguments of their own)", name, i, str)
			}
		}
		return list, nil
	case KindEnum:
		s, ok := v.(string)
		if !ok {
			return nil, refuse("argument %q must be one of %s, not %s", name, strings.Join(quoteAll(a.Enum), ", "), typeName(v))
		}
		for _, e := range a.Enum {
			if s == e {
				return s, nil
			}
		}
		return nil, refuse("argument %q: %q is not one of %s", name, s, strings.Join(quoteAll(a.Enum), ", "))
	case KindObject:
		o, ok := v.(map[string]any)
		if !ok {
			return nil, refuse("argument %q must be an object, not %s", name, typeName(v))
		}
		vals, err := checkObject(name+".", o, a.Props)
		if err != nil {
			return nil, err
		}
		return map[string]any(vals), nil
	case KindBoolOrRef:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if strings.HasPrefix(x, "-") {
				// It reaches git: never let it read as an option.
				return nil, refuse("argument %q: %q starts with \"-\": a git ref never does (use a branch, tag or commit)", name, x)
			}
			return nonEmpty(x, "true, false or a git ref")
		}
		return nil, refuse("argument %q must be true, false or a git ref, not %s", name, typeName(v))
	}
	return nil, refuse("argument %q is not understood", name)
}

func describe(v any) string {
	if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
		return "an empty string"
	}
	return typeName(v)
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}
