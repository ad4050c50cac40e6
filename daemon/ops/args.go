package ops

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/vzn/vx/opkit"
)

// The argument types of vx's own inputs (a run's selection, init's mode),
// beside the kit's shared ones (opkit: TaskID, RunID, Limit…): each knows
// its JSON Schema (JSONSchema), how an agent's JSON value fills it
// (DecodeArg, the shape) and its rule (Check, which the schema states
// where a pattern can).

// runID reads an optional run id: given is false for nil (the default
// run); a given empty id is refused by the operation.
func runRef(r *opkit.RunID) (id string, given bool) {
	if r == nil {
		return "", false
	}
	return string(*r), true
}

// limit reads an optional limit.
func limit(l *opkit.Limit) (n int, given bool) {
	if l == nil {
		return 0, false
	}
	return int(*l), true
}

// Filter is --filter: project selectors, a name or glob, tag:NAME or
// ./path/glob. An agent may give one as a string or several as an array.
type Filter []string

func (Filter) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		opkit.NonEmptySchema(),
		{Type: "array", MinItems: jsonschema.Ptr(1), Items: opkit.NonEmptySchema()},
	}}
}

// DecodeArg reads the shape: a string, or a non-empty array of strings
// (an empty selection is no selection: it is refused rather than read as
// "every project"). Check refuses a blank selector.
func (f *Filter) DecodeArg(name string, v any) error {
	const what = "a project selector or an array of them"
	if s, ok := v.(string); ok {
		*f = Filter{s}
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return opkit.Refuse(name, "must be %s, not %s", what, opkit.TypeName(v))
	}
	if len(list) == 0 {
		return opkit.Refuse(name, "must name at least one project selector, not an empty array (omit %s to select every project)", name)
	}
	out := make(Filter, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return opkit.Refuse(fmt.Sprintf("%s[%d]", name, i), "must be a project selector, not %s", opkit.TypeName(e))
		}
	}
	*f = out
	return nil
}

// UnmarshalJSON reads a filter as an agent gives it: a string or an array.
func (f *Filter) UnmarshalJSON(b []byte) error { return opkit.UnmarshalArg(b, "filter", f) }

// Check refuses a blank selector, naming it by its index when there are
// several (filter[1]), as an agent's array or a command line's repeated
// --filter gives them.
func (f Filter) Check(arg string) error {
	for i, s := range f {
		if strings.TrimSpace(s) == "" {
			if len(f) > 1 {
				arg = fmt.Sprintf("%s[%d]", arg, i)
			}
			return opkit.Refuse(arg, "must be a project selector (a name or glob, tag:NAME, or ./path/glob), not %s", describeBlank(s))
		}
	}
	return nil
}

// describeBlank says what a blank string is, as a refusal says it.
func describeBlank(s string) string {
	if s == "" {
		return "an empty string"
	}
	return "blanks only"
}

// Tasks are task names or project#task ids to run; none starts with "-".
type Tasks []string

// notAFlag is the rule that a task name or a git ref never starts with
// "-" (a child vx run or git would read it as an option): the schemas
// advertise it and the Checks refuse by it.
const notAFlag = `^[^-]`

var notAFlagRule = regexp.MustCompile(notAFlag)

func (Tasks) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), Pattern: notAFlag}}
}

func (t *Tasks) DecodeArg(name string, v any) error {
	out, err := opkit.StringArray(name, v)
	*t = out
	return err
}

// Check refuses a task that would read as a flag.
func (t Tasks) Check(arg string) error {
	for i, s := range t {
		if !notAFlagRule.MatchString(s) {
			return opkit.Refuse(fmt.Sprintf("%s[%d]", arg, i), "%q starts with \"-\": a task is a name such as build or web#build, never a flag (force, filter and affected are arguments of their own)", s)
		}
	}
	return nil
}

// Affected is --affected: off (the zero value), on against the default
// branch's merge base, or on against Ref. In JSON: false, true or the ref.
type Affected struct {
	On  bool
	Ref string
}

// SetOptional is a command line's --affected[=REF]: on, against ref when
// one is given (cmdline.optionalValue).
func (a *Affected) SetOptional(ref string) { *a = Affected{On: true, Ref: ref} }

func (Affected) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "boolean"}, {Type: "string", MinLength: jsonschema.Ptr(1), Pattern: notAFlag}}}
}

func (a *Affected) DecodeArg(name string, v any) error {
	switch x := v.(type) {
	case bool:
		*a = Affected{On: x}
		return nil
	case string:
		s, err := opkit.NonEmpty(name, x, "true, false or a git ref")
		*a = Affected{On: true, Ref: s}
		return err
	}
	return opkit.Refuse(name, "must be true, false or a git ref, not %s", opkit.TypeName(v))
}

// Check refuses a ref that git would read as an option (it reaches git).
func (a Affected) Check(arg string) error {
	if a.Ref != "" && !notAFlagRule.MatchString(a.Ref) {
		return opkit.Refuse(arg, "%q starts with \"-\": a git ref never does (use a branch, tag or commit)", a.Ref)
	}
	return nil
}

func (a Affected) MarshalJSON() ([]byte, error) {
	if a.Ref != "" {
		return json.Marshal(a.Ref)
	}
	return json.Marshal(a.On)
}

func (a *Affected) UnmarshalJSON(b []byte) error { return opkit.UnmarshalArg(b, "affected", a) }

// InitMode is vx init's mode: InitKeep (the default, "") or InitForce.
type InitMode string

func (InitMode) Values() []string                 { return []string{initKeep, InitForce} }
func (m InitMode) JSONSchema() *jsonschema.Schema { return opkit.EnumSchema(m.Values()) }

// FlagOn is vx init's --force.
func (m *InitMode) FlagOn(force bool) {
	if force {
		*m = InitForce
	}
}

func (m *InitMode) DecodeArg(name string, v any) error {
	s, err := opkit.DecodeEnum(name, v, m.Values())
	*m = InitMode(s)
	return err
}
