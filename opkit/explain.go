package opkit

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/vzn/vx/internal/suggest"
)

// explainer finds, in a value its schema refused, the innermost argument
// at fault and says what is wrong with it: a missing required argument,
// an unknown one, a wrong type, a value out of bounds or outside an enum.
// It reads the keywords jsonschema-go validates; root is the schema
// whose $defs a $ref names.
type explainer struct {
	root   *jsonschema.Schema
	titles bool // a schema's title is what a refusal says is accepted
	depth  int  // explain calls under way: bounds a cycle of $refs
}

// maxDepth bounds how deep an explanation follows a value and $refs.
const maxDepth = 64

// explain is the refusal of v, which s does not accept, at path.
func (e *explainer) explain(path string, s *jsonschema.Schema, v any) error {
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxDepth {
		return Refuse(path, "%s does not match this argument's schema", given(nil, v))
	}
	if s.Ref != "" {
		if target := e.lookup(s.Ref); target != nil && !e.accepts(target, v) {
			return e.explain(path, target, v)
		}
	}
	if obj, ok := v.(map[string]any); ok && takesType(s, "object") {
		if err := e.explainObject(path, s, obj); err != nil {
			return err
		}
	}
	if list, ok := v.([]any); ok && takesType(s, "array") {
		if err := e.explainArray(path, s, list); err != nil {
			return err
		}
	}
	if e.titles && s.Title != "" {
		return Refuse(path, "must be %s, not %s", s.Title, given(s, v))
	}
	if msg := e.keywords(s, v); msg != "" {
		return Refuse(path, "%s", msg)
	}
	return e.combined(path, s, v)
}

// combined explains v against s's allOf, anyOf, oneOf, not and if: what
// the keywords of s itself did not refuse.
func (e *explainer) combined(path string, s *jsonschema.Schema, v any) error {
	for _, a := range s.AllOf {
		if !e.accepts(a, v) {
			return e.explain(path, a, v)
		}
	}
	if alts := s.AnyOf; len(alts) > 0 || len(s.OneOf) > 0 {
		if len(alts) == 0 {
			alts = s.OneOf
		}
		if err := e.alternatives(path, alts, len(s.AnyOf) == 0, v); err != nil {
			return err
		}
	}
	if s.Not != nil && e.accepts(s.Not, v) {
		return Refuse(path, "must not be %s (%s is refused here)", e.phrase(s.Not), given(s.Not, v))
	}
	if s.If != nil {
		branch := s.Else
		if e.accepts(s.If, v) {
			branch = s.Then
		}
		if branch != nil && !e.accepts(branch, v) {
			return e.explain(path, branch, v)
		}
	}
	return Refuse(path, "%s does not match this argument's schema", given(s, v))
}

// alternatives explains v against anyOf (or oneOf) alts: when one
// alternative takes v's type, why that one refused it; else what each
// takes.
func (e *explainer) alternatives(path string, alts []*jsonschema.Schema, one bool, v any) error {
	var passed, typed []*jsonschema.Schema
	for _, a := range alts {
		if e.accepts(a, v) {
			passed = append(passed, a)
		} else if takesType(e.deref(a), jsonTypeOf(v)) {
			typed = append(typed, a)
		}
	}
	switch {
	case len(passed) == 1 || len(passed) > 1 && !one:
		return nil
	case len(passed) > 1:
		return Refuse(path, "must match exactly one of its alternatives (%s), not %d of them: %s", e.phrases(alts), len(passed), given(alts[0], v))
	case len(typed) == 1:
		return e.explain(path, typed[0], v)
	}
	return Refuse(path, "must be %s, not %s", e.phrases(alts), typeName(v))
}

func (e *explainer) phrases(alts []*jsonschema.Schema) string {
	words := make([]string, len(alts))
	for i, a := range alts {
		words[i] = e.phrase(a)
	}
	return strings.Join(words, " or ")
}

// explainObject refuses obj at the first of its members s refuses (in
// name order), an unknown one, a missing required one, or one another
// requires.
func (e *explainer) explainObject(path string, s *jsonschema.Schema, obj map[string]any) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := e.explainMember(path, s, k, obj[k]); err != nil {
			return err
		}
	}
	for _, r := range s.Required {
		if _, ok := obj[r]; !ok {
			return e.missing(path, s, r, "")
		}
	}
	for _, k := range keys {
		for _, r := range s.DependentRequired[k] {
			if _, ok := obj[r]; !ok {
				return e.missing(path, s, r, fmt.Sprintf(" when %q is given", k))
			}
		}
	}
	return nil
}

// missing is the refusal of required argument r of s, not given.
func (e *explainer) missing(path string, s *jsonschema.Schema, r, when string) error {
	msg := "required" + when + " but missing"
	if p := s.Properties[r]; p != nil && p.Description != "" {
		msg += ": " + clip(p.Description)
	}
	return Refuse(join(path, r), "%s", msg)
}

// explainMember refuses member k of an object s describes: a name s does
// not take, or a value its property (or pattern or additional) schema
// refuses.
func (e *explainer) explainMember(path string, s *jsonschema.Schema, k string, v any) error {
	if s.PropertyNames != nil && !e.accepts(s.PropertyNames, k) {
		why := e.keywords(e.deref(s.PropertyNames), k)
		if why == "" {
			why = "its propertyNames schema refuses it"
		}
		return Refuse(join(path, k), "is not a name %s takes: %s", e.holder(path), why)
	}
	var subs []*jsonschema.Schema
	if p, ok := s.Properties[k]; ok {
		subs = append(subs, p)
	}
	for pat, p := range s.PatternProperties {
		if re, err := regexp.Compile(pat); err == nil && re.MatchString(k) {
			subs = append(subs, p)
		}
	}
	if len(subs) == 0 && s.AdditionalProperties != nil {
		if isFalse(s.AdditionalProperties) {
			hint := suggest.Close(k, names(s))
			if !strings.HasPrefix(hint, " (did you mean") {
				hint = "" // the names it takes follow anyway
			}
			return Refuse(join(path, k), "no such argument%s (%s takes: %s)", hint, e.holder(path), takes(s))
		}
		subs = append(subs, s.AdditionalProperties)
	}
	for _, sub := range subs {
		if !e.accepts(sub, v) {
			return e.explain(join(path, k), sub, v)
		}
	}
	return nil
}

// holder names the object whose members are at path.
func (e *explainer) holder(path string) string {
	if path == "" {
		return "this tool"
	}
	return path
}

// names are the property names s lists, sorted.
func names(s *jsonschema.Schema) []string {
	out := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// takes says which member names s takes: its properties and patterns.
func takes(s *jsonschema.Schema) string {
	out := names(s)
	pats := make([]string, 0, len(s.PatternProperties))
	for p := range s.PatternProperties {
		pats = append(pats, p)
	}
	sort.Strings(pats)
	for _, p := range pats {
		out = append(out, "names matching "+pattern(p))
	}
	if len(out) == 0 {
		return "none"
	}
	return list(out)
}

// explainArray refuses list at the first item s's items (or prefixItems)
// refuse.
func (e *explainer) explainArray(path string, s *jsonschema.Schema, list []any) error {
	for i, v := range list {
		var sub *jsonschema.Schema
		switch {
		case i < len(s.PrefixItems):
			sub = s.PrefixItems[i]
		case i < len(s.ItemsArray):
			sub = s.ItemsArray[i]
		case len(s.ItemsArray) > 0:
			sub = s.AdditionalItems
		default:
			sub = itemsOf(s)
		}
		if sub != nil && !e.accepts(sub, v) {
			if isFalse(sub) {
				return Refuse(path, "must hold at most %d items, not %d", i, len(list))
			}
			return e.explain(fmt.Sprintf("%s[%d]", path, i), sub, v)
		}
	}
	return nil
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

// isFalse reports whether s is the schema accepting nothing (false).
func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && s.Not.Ref == "" && len(s.Not.Properties) == 0 && s.Not.Type == "" && s.Not.Types == nil &&
		s.Not.Enum == nil && s.Not.Const == nil && s.Not.AnyOf == nil && s.Not.AllOf == nil && s.Not.OneOf == nil && s.Not.Not == nil
}

// lookup is the schema a local $ref names in the root: "#", or
// "#/$defs/NAME" and "#/definitions/NAME"; nil for another.
func (e *explainer) lookup(ref string) *jsonschema.Schema {
	if ref == "#" {
		return e.root
	}
	if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
		return e.root.Defs[name]
	}
	if name, ok := strings.CutPrefix(ref, "#/definitions/"); ok {
		return e.root.Definitions[name]
	}
	return nil
}

// deref is s, or the schema its $ref names when it is only a reference.
func (e *explainer) deref(s *jsonschema.Schema) *jsonschema.Schema {
	if s.Ref != "" {
		if t := e.lookup(s.Ref); t != nil {
			return t
		}
	}
	return s
}

var resolvedSubs sync.Map // *jsonschema.Schema → *jsonschema.Resolved (nil: unresolvable)

// accepts reports whether s, a subschema of the root, accepts v: s is
// resolved on its own, beside the root's $defs (cached: a schema given
// once never changes).
func (e *explainer) accepts(s *jsonschema.Schema, v any) bool {
	r, ok := resolvedSubs.Load(s)
	if !ok {
		w := (&jsonschema.Schema{Defs: e.root.Defs, Definitions: e.root.Definitions, AllOf: []*jsonschema.Schema{s}}).CloneSchemas()
		e.keepRootRefs(w)
		rs, err := w.Resolve(nil)
		if err != nil {
			rs = nil
		}
		r, _ = resolvedSubs.LoadOrStore(s, rs)
	}
	rs := r.(*jsonschema.Resolved)
	return rs == nil || rs.Validate(v) == nil
}

// keepRootRefs makes the $refs in w, the wrapper accepts resolves a
// subschema in, name what they name in the root: a copy of the root joins
// w's definitions, and every "$ref" that is "#" or a JSON pointer into
// the root outside its definitions names it, or the same place in it (in
// w, "#" is w, and "#/allOf/0" the subschema: either could apply itself
// to the same value for ever).
func (e *explainer) keepRootRefs(w *jsonschema.Schema) {
	intoRoot := func(ref string) bool {
		return ref == "#" || strings.HasPrefix(ref, "#/") && !strings.HasPrefix(ref, "#/$defs/") && !strings.HasPrefix(ref, "#/definitions/")
	}
	found := false
	eachSchema(w, func(s *jsonschema.Schema) bool {
		found = intoRoot(s.Ref)
		return !found
	})
	if !found {
		return
	}
	defs, prefix := &w.Defs, "#/$defs/"
	if w.Definitions != nil {
		defs, prefix = &w.Definitions, "#/definitions/"
	}
	if *defs == nil {
		*defs = map[string]*jsonschema.Schema{}
	}
	name := "root"
	for (*defs)[name] != nil {
		name += "_"
	}
	(*defs)[name] = e.root.CloneSchemas()
	eachSchema(w, func(s *jsonschema.Schema) bool {
		if intoRoot(s.Ref) {
			s.Ref = prefix + name + strings.TrimPrefix(s.Ref, "#")
		}
		return true
	})
}

// clip is text cut to a length a one-line refusal can hold.
func clip(text string) string {
	const most = 80
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= most {
		return text
	}
	r := []rune(text)
	return string(r[:most]) + "…"
}

// join is the path of member k of the object at path.
func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
