package ops

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/vzn/vx/opkit"
)

// The argument types of vx's own inputs (a run's selection, init's mode),
// beside the kit's shared ones (opkit: TaskID, RunID, Limit…): each knows
// its JSON Schema (JSONSchema), which holds its rules and, as titles,
// the words a refusal uses for what is accepted; encoding/json fills it.

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
// ./path/glob, with Turborepo's ... ^ and ! (workspace.Select). An agent may give one as a string or several as a
// non-empty array (an empty selection is no selection: it is refused
// rather than read as "every project").
type Filter []string

func (Filter) JSONSchema() *jsonschema.Schema {
	selector := opkit.NonEmptySchema()
	selector.Title = "a project selector (a name or glob, tag:NAME, or ./path/glob; web... adds its dependencies, ...web its dependents, !SEL leaves SEL out)"
	return &jsonschema.Schema{Title: "a project selector or a non-empty array of them (omit filter to select every project)",
		AnyOf: []*jsonschema.Schema{selector, {Type: "array", MinItems: jsonschema.Ptr(1), Items: selector}}}
}

// UnmarshalJSON reads a filter as an agent gives it: a string or an array.
func (f *Filter) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*f = Filter{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(f))
}

// Tasks are task names or project#task ids to run; none starts with "-".
type Tasks []string

// notAFlag is the rule that a task name or a git ref never starts with
// "-" (a child vx run or git would read it as an option), written once in
// the schemas.
const notAFlag = `^[^-]`

// notAFlagSchema is a non-blank string that does not start with "-",
// titled what.
func notAFlagSchema(what string) *jsonschema.Schema {
	s := opkit.NonEmptySchema()
	s.Title = what
	s.AllOf = []*jsonschema.Schema{{Pattern: notAFlag}}
	return s
}

func (Tasks) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: notAFlagSchema(
		"a task name such as build or web#build, never a flag (force, filter and affected are arguments of their own)")}
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
	return &jsonschema.Schema{Title: "true, false or a git ref (a branch, tag or commit, never starting with \"-\")",
		AnyOf: []*jsonschema.Schema{{Type: "boolean"}, notAFlagSchema("a git ref")}}
}

func (a Affected) MarshalJSON() ([]byte, error) {
	if a.Ref != "" {
		return json.Marshal(a.Ref)
	}
	return json.Marshal(a.On)
}

// UnmarshalJSON reads true, false or a ref, as the schema accepted it.
func (a *Affected) UnmarshalJSON(b []byte) error {
	if json.Unmarshal(b, &a.On) == nil {
		a.Ref = ""
		return nil
	}
	*a = Affected{On: true}
	return json.Unmarshal(b, &a.Ref)
}

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
