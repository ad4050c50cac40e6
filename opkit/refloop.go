package opkit

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkRefs refuses a data schema whose references a check of arguments
// could follow for ever: a $ref (alone or through allOf, anyOf, oneOf,
// not, if, then, else or dependentSchemas) that comes back to a schema
// already applied to the same value. jsonschema-go follows such a loop
// until the stack overflows, which kills the process. A loop through a
// property, an item or another keyword applied to a part of the value
// ends with the value, and is taken. Only the $refs this package follows
// itself are taken (a JSON pointer or an $anchor in the root, in a
// schema with no $id below its root), so that every one is checked.
func checkRefs(root *jsonschema.Schema) error {
	r := refLoops{root: root, state: map[*jsonschema.Schema]int{}}
	var err error
	eachSchema(root, func(s *jsonschema.Schema) bool {
		switch {
		case s.DynamicRef != "":
			err = fmt.Errorf("its $dynamicRef %q is not one vx follows", s.DynamicRef)
		case s != root && s.ID != "":
			err = fmt.Errorf("a $id below its root (%q) is not one vx follows $refs under", s.ID)
		case s.Ref != "" && r.target(s.Ref) == nil:
			err = fmt.Errorf("its $ref %q names no schema in it (vx follows a JSON pointer such as #/$defs/NAME, or an $anchor)", s.Ref)
		default:
			err = r.visit(s)
		}
		return err == nil
	})
	return err
}

// refLoops finds loops among the schemas applied to one value.
type refLoops struct {
	root  *jsonschema.Schema
	state map[*jsonschema.Schema]int // 1: being visited, 2: done
}

// target is the schema a $ref names in the root, nil when not one it
// can follow: "#", a JSON pointer into the root ("#/$defs/NAME",
// "#/properties/a/items"), or a plain-name fragment ("#name", an
// $anchor).
func (r *refLoops) target(ref string) *jsonschema.Schema {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if frag, err := url.PathUnescape(frag); err == nil && frag != "" && !strings.HasPrefix(frag, "/") {
		var found *jsonschema.Schema
		eachSchema(r.root, func(s *jsonschema.Schema) bool {
			if s.Anchor == frag || s.DynamicAnchor == frag {
				found = s
			}
			return found == nil
		})
		return found
	}
	cur := reflect.ValueOf(r.root)
	for _, seg := range strings.Split(frag, "/")[1:] {
		seg, err := url.PathUnescape(strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~"))
		if err != nil {
			return nil
		}
		if cur = step(cur, seg); !cur.IsValid() {
			return nil
		}
	}
	if s, ok := cur.Interface().(*jsonschema.Schema); ok && s != nil {
		return s
	}
	return nil
}

// step is what one JSON pointer segment names in v: a schema's member
// (by its JSON name), a list's item, a map's value; invalid for none.
func step(v reflect.Value, seg string) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		s, ok := v.Interface().(*jsonschema.Schema)
		if !ok || s == nil {
			return reflect.Value{}
		}
		if seg == "items" && s.ItemsArray != nil {
			return reflect.ValueOf(s.ItemsArray)
		}
		for _, f := range reflect.VisibleFields(v.Elem().Type()) {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == seg && f.IsExported() {
				return v.Elem().FieldByIndex(f.Index)
			}
		}
	case reflect.Slice:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < v.Len() {
			return v.Index(i)
		}
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String {
			if e := v.MapIndex(reflect.ValueOf(seg)); e.IsValid() {
				return e
			}
		}
	}
	return reflect.Value{}
}

// visit walks, depth first, the schemas applied to the same value as s.
func (r *refLoops) visit(s *jsonschema.Schema) error {
	switch r.state[s] {
	case 1:
		return fmt.Errorf("its $refs loop: a schema is applied to the same value again, for ever")
	case 2:
		return nil
	}
	r.state[s] = 1
	next := slicesOf(s.AllOf, s.AnyOf, s.OneOf)
	next = append(next, s.Not, s.If, s.Then, s.Else, r.target(s.Ref))
	for _, d := range s.DependentSchemas {
		next = append(next, d)
	}
	for _, n := range next {
		if n == nil {
			continue
		}
		if err := r.visit(n); err != nil {
			return err
		}
	}
	r.state[s] = 2
	return nil
}

func slicesOf(lists ...[]*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var schemaPtrType = reflect.TypeFor[*jsonschema.Schema]()

// eachSchema calls f on s and every schema in it (each field holding a
// schema, a list or a map of them), until f answers false.
func eachSchema(s *jsonschema.Schema, f func(*jsonschema.Schema) bool) bool {
	if s == nil {
		return true
	}
	if !f(s) {
		return false
	}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		fv := v.Field(i)
		switch {
		case fv.Type() == schemaPtrType:
			if !eachSchema(fv.Interface().(*jsonschema.Schema), f) {
				return false
			}
		case (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.Type().Elem() == schemaPtrType:
			if fv.Kind() == reflect.Slice {
				for j := range fv.Len() {
					if !eachSchema(fv.Index(j).Interface().(*jsonschema.Schema), f) {
						return false
					}
				}
				continue
			}
			iter := fv.MapRange()
			for iter.Next() {
				if !eachSchema(iter.Value().Interface().(*jsonschema.Schema), f) {
					return false
				}
			}
		}
	}
	return true
}
