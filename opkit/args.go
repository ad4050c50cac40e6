package opkit

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The argument types inputs are made of where a Go kind says too little
// (both vx's operations and the platform's): each knows its JSON Schema
// (JSONSchema), which holds its rules and, as its title, the words a
// refusal uses for what is accepted; encoding/json fills it once the
// schema has accepted the value.

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

// notBlank is the rule that a string argument holds something other
// than white space (a schema's minLength counts blanks).
const notBlank = `\S`

// NonEmptySchema is the schema of a string with something other than
// blanks.
func NonEmptySchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), Pattern: notBlank}
}

// TaskID is a task id, project#task: the last "#" splits it, and each
// half holds something other than white space. taskIDPattern is that rule,
// written once: the schema says it (so decoding and Check refuse by it)
// and Split, for a string that is not an argument of this type, matches
// it with Go's regexp.
type TaskID string

const taskIDPattern = `^.*\S.*#[^#]*[^#\s][^#]*$`

var taskIDRule = regexp.MustCompile(taskIDPattern)

func (TaskID) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: taskIDPattern,
		Title: "a task id project#task, neither half blank (e.g. web#build)"}
}

// Split is the id's project and task halves, refusing an id missing one.
func (t TaskID) Split(arg string) (project, task string, err error) {
	if !taskIDRule.MatchString(string(t)) {
		return "", "", Refuse(arg, "%q is missing a half; use project#task, e.g. web#build", string(t))
	}
	i := strings.LastIndex(string(t), "#")
	return string(t[:i]), string(t[i+1:]), nil
}

// RunID is a run id or a unique prefix of one.
type RunID string

func (RunID) JSONSchema() *jsonschema.Schema {
	s := NonEmptySchema()
	s.Title = "a run id or a unique prefix of one (`vx last --list` shows run ids)"
	return s
}

// Limit is a count an operation clamps to its range (and says so): any
// finite number, rounded, is accepted.
type Limit int

func (Limit) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "number", Title: "a finite number"}
}

// UnmarshalJSON reads a number the schema accepted, rounded, huge values
// clamped first (the operation clamps to its range).
func (l *Limit) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*l = Limit(math.Round(max(min(f, 1e9), -1e9)))
	return nil
}

// LimitOf is a limit of n, for callers that give one.
func LimitOf(n int) *Limit { l := Limit(n); return &l }

// EnumSchema is the schema of a string argument with a fixed set of
// values, for an enum type's JSONSchema method.
func EnumSchema(values []string) *jsonschema.Schema {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return &jsonschema.Schema{Type: "string", Enum: vs}
}

// Words is a search query: any string, for the operation to say what a
// query without words is (the same refusal through a tool and a verb).
type Words string

func (Words) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(0)}
}

// Bucket is a trend's bucket size: hour (the default, "") or day.
type Bucket string

func (Bucket) Values() []string                 { return []string{"hour", "day"} }
func (b Bucket) JSONSchema() *jsonschema.Schema { return EnumSchema(b.Values()) }
