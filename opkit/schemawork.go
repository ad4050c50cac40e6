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
	same := slicesOf(s.AllOf, s.AnyOf, s.OneOf)
	same = append(same, s.Not, s.If, s.Then, s.Else)
	if s.Ref != "" {
		same = append(same, w.refs.target(s.Ref))
	}
	add(same, depth)
	add(mapValues(s.DependentSchemas), depth)
	add(mapValues(s.DependencySchemas), depth)
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

func mapValues(m map[string]*jsonschema.Schema) []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	return out
}
