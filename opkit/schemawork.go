package opkit

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxSchemaWork bounds the schemas a check of one tool's arguments may
// apply, counted the way schemaWork counts them, for a tool whose schema
// is data. jsonschema-go tries every anyOf and oneOf alternative, so a
// schema whose alternatives each recurse does work that multiplies by
// their number at each level of the arguments (eight alternatives over
// MaxArgsDepth levels took 2 s of a core a call; sixteen would take
// minutes). Real input schemas count in the tens or hundreds.
const maxSchemaWork = 100_000

// maxArgsWork bounds the schemas a check of one call's arguments may
// apply, counted over the arguments themselves (argsWork): a check
// applying as many took up to half a second of a core (an anyOf of
// 1,000 consts for each of 200 items, each failing but one).
const maxArgsWork = 200_000

// checkWork refuses a data schema a check of arguments nested up to
// MaxArgsDepth levels could apply more than maxSchemaWork schemas for:
// refused once, when the schema is declared, rather than burning a core
// at every call.
func checkWork(root *jsonschema.Schema) error {
	w := schemaWork{refs: refLoops{root: root}, memo: map[workAt]int{}}
	if n := w.count(root, MaxArgsDepth); n > maxSchemaWork {
		return fmt.Errorf("checking arguments against it could apply more than %d schemas (its anyOf/oneOf alternatives recurse into one another): give it fewer alternatives or levels", maxSchemaWork)
	}
	return nil
}

// schemaWork counts, for a schema and a depth, the schemas a check of a
// value nested that deep applies at most: the schema, those applied to
// the same value (allOf, anyOf, oneOf, not, if, then, else, a $ref's
// target, dependentSchemas), and one level less for those applied to
// its parts (properties, items…). Counts stop growing past
// maxSchemaWork. checkRefs has refused the $ref loops that apply a
// schema to the same value again, so the count ends.
type schemaWork struct {
	refs refLoops
	memo map[workAt]int
}

type workAt struct {
	s     *jsonschema.Schema
	depth int
}

func (w *schemaWork) count(s *jsonschema.Schema, depth int) int {
	if s == nil {
		return 0
	}
	at := workAt{s, depth}
	if n, ok := w.memo[at]; ok {
		return n
	}
	n := 1
	add := func(subs []*jsonschema.Schema, d int) {
		for _, c := range subs {
			if n <= maxSchemaWork {
				n += w.count(c, d)
			}
		}
	}
	add(sameValue(s, w.refs.target), depth)
	if depth > 0 {
		parts := slicesOf(s.PrefixItems, s.ItemsArray)
		parts = append(parts, s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems,
			s.AdditionalProperties, s.PropertyNames, s.UnevaluatedProperties)
		add(parts, depth-1)
		add(mapValues(s.Properties), depth-1)
		add(mapValues(s.PatternProperties), depth-1)
	}
	n = min(n, maxSchemaWork+1)
	w.memo[at] = n
	return n
}

// sameValue lists the schemas s applies to the value it checks: allOf,
// anyOf, oneOf, not, if, then, else, its $ref's target (target finds
// it) and dependentSchemas.
func sameValue(s *jsonschema.Schema, target func(string) *jsonschema.Schema) []*jsonschema.Schema {
	same := slicesOf(s.AllOf, s.AnyOf, s.OneOf)
	same = append(same, s.Not, s.If, s.Then, s.Else)
	if s.Ref != "" {
		same = append(same, target(s.Ref))
	}
	same = append(same, mapValues(s.DependentSchemas)...)
	return append(same, mapValues(s.DependencySchemas)...)
}

// checkArgsWork refuses inst, decoded arguments, when checking it
// against root could apply more than maxArgsWork schemas: the declared
// bound (checkWork) counts along one path of the arguments, and a long
// list multiplies it.
func checkArgsWork(root *jsonschema.Schema, inst any) error {
	w := argsWork{refs: refLoops{root: root}, targets: map[string]*jsonschema.Schema{}, left: maxArgsWork}
	if w.visit(root, inst); w.left < 0 {
		return Refuse("", "checking these arguments against the tool's schema would apply more than %d schemas: send fewer or shorter lists", maxArgsWork)
	}
	return nil
}

// argsWork counts down, from left, the schemas a check of arguments
// applies at most: every alternative, if, then and else alike, each
// property's schemas and each item's. It stops below zero.
type argsWork struct {
	refs    refLoops
	targets map[string]*jsonschema.Schema // $ref → its target, as found
	left    int
}

func (w *argsWork) visit(s *jsonschema.Schema, v any) {
	if s == nil || w.left < 0 {
		return
	}
	w.left--
	for _, c := range sameValue(s, w.target) {
		w.visit(c, v)
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			for _, c := range append(mapValues(s.PatternProperties), s.Properties[k], s.AdditionalProperties, s.UnevaluatedProperties) {
				w.visit(c, x)
			}
			w.visit(s.PropertyNames, k)
		}
	case []any:
		for i, x := range v {
			if i < len(s.PrefixItems) {
				w.visit(s.PrefixItems[i], x)
			}
			if i < len(s.ItemsArray) {
				w.visit(s.ItemsArray[i], x)
			}
			for _, c := range []*jsonschema.Schema{s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems} {
				w.visit(c, x)
			}
		}
	}
}

// target is refs.target(ref), found once a check.
func (w *argsWork) target(ref string) *jsonschema.Schema {
	t, ok := w.targets[ref]
	if !ok {
		t = w.refs.target(ref)
		w.targets[ref] = t
	}
	return t
}

func mapValues(m map[string]*jsonschema.Schema) []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	return out
}
