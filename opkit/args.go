package opkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The argument types inputs are made of where a Go kind says too little
// (both vx's operations and the platform's): each knows its JSON Schema
// (JSONSchema), how an agent's JSON value fills it (DecodeArg, refusing
// it with a *Refusal naming the argument) and, where JSON Schema cannot
// say it, what its Check refuses.

// TypeName names a decoded JSON value's type as a refusal says it.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func describe(v any) string {
	if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
		return "an empty string"
	}
	return TypeName(v)
}

// NonEmpty is what a string argument must be: a string with something
// other than blanks. what says what the argument is, for the refusal.
func NonEmpty(name string, v any, what string) (string, error) {
	str, ok := v.(string)
	if !ok {
		return "", Refuse(name, "must be %s, not %s", what, TypeName(v))
	}
	if strings.TrimSpace(str) == "" {
		return "", Refuse(name, "must be %s, not an empty string", what)
	}
	return str, nil
}

// NonEmptySchema is the schema of a non-empty string (that it is not
// blank is NonEmpty's, beyond what a schema says).
func NonEmptySchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1)}
}

// TaskID is a task id, project#task: the last "#" splits it, and each
// half holds something other than white space. taskIDPattern is that rule,
// written once: the schema advertises it and Check refuses by it (both
// with Go's regexp, so they cannot disagree).
type TaskID string

const taskIDPattern = `^.*\S.*#[^#]*[^#\s][^#]*$`

var taskIDRule = regexp.MustCompile(taskIDPattern)

func (TaskID) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: taskIDPattern}
}

func (t *TaskID) DecodeArg(name string, v any) error {
	s, err := NonEmpty(name, v, "a task id project#task (e.g. web#build)")
	*t = TaskID(s)
	return err
}

// Check refuses an id without a project or a task half; decoding runs it
// for the CLI and MCP alike (see Check).
func (t TaskID) Check(arg string) error {
	if t == "" {
		return Refuse(arg, "must be a task id project#task, e.g. web#build (got an empty string)")
	}
	if !taskIDRule.MatchString(string(t)) {
		return Refuse(arg, "%q is missing a half; use project#task, e.g. web#build", string(t))
	}
	return nil
}

// Split is the id's project and task halves, refusing (as Check) an id
// missing one.
func (t TaskID) Split(arg string) (project, task string, err error) {
	if err := t.Check(arg); err != nil {
		return "", "", err
	}
	i := strings.LastIndex(string(t), "#")
	return string(t[:i]), string(t[i+1:]), nil
}

// RunID is a run id or a unique prefix of one.
type RunID string

func (RunID) JSONSchema() *jsonschema.Schema { return NonEmptySchema() }

func (r *RunID) DecodeArg(name string, v any) error {
	s, err := NonEmpty(name, v, "a run id or a unique prefix of one")
	*r = RunID(s)
	return err
}

// Limit is a count an operation clamps to its range (and says so): any
// finite number, rounded, is accepted, so the schema says only "number".
type Limit int

func (Limit) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "number"} }

func (l *Limit) DecodeArg(name string, v any) error {
	n, ok := v.(json.Number)
	if !ok {
		return Refuse(name, "must be a finite number, not %s", TypeName(v))
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return Refuse(name, "must be a finite number, not %s", n.String())
	}
	// Clamp huge values before converting; the operation clamps to its range.
	f = max(min(f, 1e9), -1e9)
	*l = Limit(math.Round(f))
	return nil
}

// LimitOf is a limit of n, for callers that give one.
func LimitOf(n int) *Limit { l := Limit(n); return &l }

// StringArray reads an array of non-empty strings.
func StringArray(name string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, Refuse(name, "must be an array of non-empty strings, not %s", TypeName(v))
	}
	return decodeStrings(name, list)
}

// decodeStrings reads list, a decoded JSON array, as non-empty strings,
// refusing an element by its index (name[i]).
func decodeStrings(name string, list []any) ([]string, error) {
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, Refuse(fmt.Sprintf("%s[%d]", name, i), "must be a non-empty string, not %s", describe(e))
		}
		out = append(out, s)
	}
	return out, nil
}

// UnmarshalArg is an argument type's UnmarshalJSON: its DecodeArg over
// the JSON value (numbers kept exact), then its Check, in Decode's order.
func UnmarshalArg(b []byte, name string, d Decoder) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if err := d.DecodeArg(name, v); err != nil {
		return err
	}
	if c, ok := d.(checker); ok {
		return c.Check(name)
	}
	return nil
}

// EnumSchema is the schema of a string argument with a fixed set of
// values, for an enum type's JSONSchema method.
func EnumSchema(values []string) *jsonschema.Schema {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return &jsonschema.Schema{Type: "string", Enum: vs}
}

// DecodeEnum reads one of values, for an enum type's DecodeArg method.
func DecodeEnum(name string, v any, values []string) (string, error) {
	quoted := make([]string, len(values))
	for i, e := range values {
		quoted[i] = fmt.Sprintf("%q", e)
	}
	s, ok := v.(string)
	if !ok {
		return "", Refuse(name, "must be one of %s, not %s", strings.Join(quoted, ", "), TypeName(v))
	}
	for _, e := range values {
		if s == e {
			return s, nil
		}
	}
	return "", Refuse(name, "%q is not one of %s", s, strings.Join(quoted, ", "))
}

// Words is a search query: any string, for the operation to say what a
// query without words is (the same refusal through a tool and a verb).
type Words string

func (Words) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(0)}
}

func (w *Words) DecodeArg(name string, v any) error {
	s, ok := v.(string)
	if !ok {
		return Refuse(name, "must be a non-empty string, not %s", TypeName(v))
	}
	*w = Words(s)
	return nil
}

// Bucket is a trend's bucket size: hour (the default, "") or day.
type Bucket string

func (Bucket) Values() []string                 { return []string{"hour", "day"} }
func (b Bucket) JSONSchema() *jsonschema.Schema { return EnumSchema(b.Values()) }
func (b *Bucket) DecodeArg(name string, v any) error {
	s, err := DecodeEnum(name, v, b.Values())
	*b = Bucket(s)
	return err
}
