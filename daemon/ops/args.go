package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The argument types operations' inputs are made of, where a Go kind says
// too little: each knows its JSON Schema (JSONSchema), how an agent's JSON
// value fills it (DecodeArg, with the refusal naming the argument) and,
// where JSON Schema cannot say it, what Validate checks.

// InputError is a refusal of an input before the operation runs: Text is
// the whole sentence, naming the argument.
type InputError struct {
	Arg  string
	Text string
}

func (e *InputError) Error() string { return e.Text }

func refuse(arg, format string, a ...any) error {
	return &InputError{Arg: arg, Text: fmt.Sprintf(format, a...)}
}

// typeName names a decoded JSON value's type as a refusal says it.
func typeName(v any) string {
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
	return typeName(v)
}

// nonEmpty is what a string argument must be: a string with something
// other than blanks. what says what the argument is, for the refusal.
func nonEmpty(name string, v any, what string) (string, error) {
	str, ok := v.(string)
	if !ok {
		return "", refuse(name, "argument %q must be %s, not %s", name, what, typeName(v))
	}
	if strings.TrimSpace(str) == "" {
		return "", refuse(name, "argument %q must be %s, not an empty string", name, what)
	}
	return str, nil
}

func nonEmptySchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1)}
}

// TaskID is a task id, project#task; Validate checks both halves.
type TaskID string

func (TaskID) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: "^.+#[^#]+$"}
}

func (t *TaskID) DecodeArg(name string, v any) error {
	s, err := nonEmpty(name, v, "a task id project#task (e.g. web#build)")
	if err != nil {
		return err
	}
	*t = TaskID(s)
	return t.Check(name) // what the schema's pattern says, in words
}

// Check refuses an id without a project or a task half.
func (t TaskID) Check(arg string) error {
	_, _, err := checkTaskID(arg, string(t))
	return err
}

// RunID is a run id or a unique prefix of one.
type RunID string

func (RunID) JSONSchema() *jsonschema.Schema { return nonEmptySchema() }

func (r *RunID) DecodeArg(name string, v any) error {
	s, err := nonEmpty(name, v, "a run id or a unique prefix of one")
	*r = RunID(s)
	return err
}

// runID reads an optional run id: given is false for nil (the default
// run); a given empty id is refused by the operation.
func runRef(r *RunID) (id string, given bool) {
	if r == nil {
		return "", false
	}
	return string(*r), true
}

// Limit is a count an operation clamps to its range (and says so): any
// finite number, rounded, is accepted, so the schema says only "number".
type Limit int

func (Limit) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "number"} }

func (l *Limit) DecodeArg(name string, v any) error {
	n, ok := v.(json.Number)
	if !ok {
		return refuse(name, "argument %q must be a finite number, not %s", name, typeName(v))
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return refuse(name, "argument %q must be a finite number, not %s", name, n.String())
	}
	// Clamp huge values before converting; the operation clamps to its range.
	f = max(min(f, 1e9), -1e9)
	*l = Limit(math.Round(f))
	return nil
}

// limit reads an optional limit.
func limit(l *Limit) (n int, given bool) {
	if l == nil {
		return 0, false
	}
	return int(*l), true
}

// LimitOf is a limit of n, for callers that give one.
func LimitOf(n int) *Limit { l := Limit(n); return &l }

// Filter is --filter: project selectors, a name or glob, tag:NAME or
// ./path/glob. An agent may give one as a string or several as an array.
type Filter []string

func (Filter) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		nonEmptySchema(),
		{Type: "array", MinItems: jsonschema.Ptr(1), Items: nonEmptySchema()},
	}}
}

func (f *Filter) DecodeArg(name string, v any) error {
	const what = "a non-empty string or an array of them"
	if s, ok := v.(string); ok {
		s, err := nonEmpty(name, s, what)
		*f = Filter{s}
		return err
	}
	list, ok := v.([]any)
	if !ok {
		return refuse(name, "argument %q must be %s, not %s", name, what, typeName(v))
	}
	if len(list) == 0 {
		// An empty selection is no selection: refuse it rather than read
		// it as "every project".
		return refuse(name, "argument %q is an empty array: name at least one project selector, or omit %s to select every project", name, name)
	}
	out, err := decodeStrings(name, list)
	*f = out
	return err
}

// UnmarshalJSON reads a filter as an agent gives it: a string or an array.
func (f *Filter) UnmarshalJSON(b []byte) error { return unmarshalArg(b, "filter", f) }

// stringArray reads an array of non-empty strings.
func stringArray(name string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, refuse(name, "argument %q must be an array of non-empty strings, not %s", name, typeName(v))
	}
	return decodeStrings(name, list)
}

func decodeStrings(name string, list []any) ([]string, error) {
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, refuse(fmt.Sprintf("%s[%d]", name, i), "argument %s[%d] must be a non-empty string, not %s", name, i, describe(e))
		}
		out = append(out, s)
	}
	return out, nil
}

// Check refuses a blank selector (a command line's --filter "").
func (f Filter) Check(arg string) error {
	for _, s := range f {
		if strings.TrimSpace(s) == "" {
			return &ArgError{Arg: arg, Msg: "must be a project selector (a name or glob, tag:NAME, or ./path/glob), not an empty string"}
		}
	}
	return nil
}

// Tasks are task names or project#task ids to run; none starts with "-".
type Tasks []string

func (Tasks) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), Pattern: "^[^-]"}}
}

func (t *Tasks) DecodeArg(name string, v any) error {
	out, err := stringArray(name, v)
	if err != nil {
		return err
	}
	for i, s := range out {
		if strings.HasPrefix(s, "-") {
			return refuse(fmt.Sprintf("%s[%d]", name, i), "argument %s[%d] %q starts with \"-\": a task is a name such as build or web#build, never a flag (force, filter and affected are arguments of their own)", name, i, s)
		}
	}
	*t = out
	return nil
}

// Affected is --affected: off (the zero value), on against the default
// branch's merge base, or on against Ref. In JSON: false, true or the ref.
type Affected struct {
	On  bool
	Ref string
}

// SetOptional is a command line's --affected[=REF]: on, against ref when
// one is given (cmdline.OptionalValue).
func (a *Affected) SetOptional(ref string) { *a = Affected{On: true, Ref: ref} }

func (Affected) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "boolean"}, {Type: "string", MinLength: jsonschema.Ptr(1), Pattern: "^[^-]"}}}
}

func (a *Affected) DecodeArg(name string, v any) error {
	switch x := v.(type) {
	case bool:
		*a = Affected{On: x}
		return nil
	case string:
		if strings.HasPrefix(x, "-") {
			return a.refuseDash(name, x)
		}
		s, err := nonEmpty(name, x, "true, false or a git ref")
		*a = Affected{On: true, Ref: s}
		return err
	}
	return refuse(name, "argument %q must be true, false or a git ref, not %s", name, typeName(v))
}

func (Affected) refuseDash(arg, ref string) error {
	// It reaches git: never let it read as an option.
	return &ArgError{Arg: arg, Msg: fmt.Sprintf("%q starts with \"-\": a git ref never does (use a branch, tag or commit)", ref)}
}

// checkSelection refuses what a project selection's schema cannot say:
// a blank selector, a ref git would read as an option.
func checkSelection(f Filter, a Affected) error {
	if err := f.Check("filter"); err != nil {
		return err
	}
	return a.Check("affected")
}

// Check refuses a ref that git would read as an option.
func (a Affected) Check(arg string) error {
	if strings.HasPrefix(a.Ref, "-") {
		return a.refuseDash(arg, a.Ref)
	}
	return nil
}

func (a Affected) MarshalJSON() ([]byte, error) {
	if a.Ref != "" {
		return json.Marshal(a.Ref)
	}
	return json.Marshal(a.On)
}

func (a *Affected) UnmarshalJSON(b []byte) error { return unmarshalArg(b, "affected", a) }

// unmarshalArg is an argument type's UnmarshalJSON: its DecodeArg over
// the JSON value, numbers kept exact.
func unmarshalArg(b []byte, name string, d argDecoder) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return d.DecodeArg(name, v)
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
		return "", refuse(name, "argument %q must be one of %s, not %s", name, strings.Join(quoted, ", "), typeName(v))
	}
	for _, e := range values {
		if s == e {
			return s, nil
		}
	}
	return "", refuse(name, "argument %q: %q is not one of %s", name, s, strings.Join(quoted, ", "))
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
		return refuse(name, "argument %q must be a non-empty string, not %s", name, typeName(v))
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

// InitMode is vx init's mode: InitKeep (the default, "") or InitForce.
type InitMode string

func (InitMode) Values() []string                 { return []string{InitKeep, InitForce} }
func (m InitMode) JSONSchema() *jsonschema.Schema { return EnumSchema(m.Values()) }

// FlagOn is vx init's --force.
func (m *InitMode) FlagOn(force bool) {
	if force {
		*m = InitForce
	}
}

func (m *InitMode) DecodeArg(name string, v any) error {
	s, err := DecodeEnum(name, v, m.Values())
	*m = InitMode(s)
	return err
}
