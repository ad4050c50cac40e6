package opkit

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// An operation's schemas come from its Go types through jsonschema-go.
// What it cannot know is registered first, by type (ForOptions.TypeSchemas):
// an argument type's own schema (its JSONSchema method: unions, enums,
// patterns), what a json.Marshaler or encoding.TextMarshaler writes, a
// []byte's base64 string, a map's null, a recursive type (unrolled once),
// and structs with embedded fields, whose names follow encoding/json's
// rules (jsonFields) rather than reflect.VisibleFields'.

// schemaType is an argument type that declares its own JSON Schema.
type schemaType interface{ JSONSchema() *jsonschema.Schema }

var (
	schemaTypeIface = reflect.TypeFor[schemaType]()
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
)

// anyValue is any JSON value. (An empty schema says the same, but
// jsonschema-go reads a pointer to a type registered with one as
// "null only".)
func anyValue() *jsonschema.Schema {
	return &jsonschema.Schema{Types: []string{"null", "boolean", "object", "array", "number", "string"}}
}

// schemaGen derives the schema of an input (output false: arguments, where
// optional is never null) or of an answer (output true: nothing is
// required, pointers, slices and maps may be null).
type schemaGen struct {
	output   bool
	opts     jsonschema.ForOptions
	building map[reflect.Type]bool
}

func newSchemaGen(output bool) *schemaGen {
	return &schemaGen{output: output, opts: jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{}}, building: map[reflect.Type]bool{}}
}

// schemaOf is the JSON Schema of t.
func (g *schemaGen) schemaOf(t reflect.Type) (*jsonschema.Schema, error) {
	if err := g.prepare(t); err != nil {
		return nil, err
	}
	s, err := jsonschema.ForType(t, &g.opts)
	if err != nil {
		return nil, err
	}
	g.finish(s)
	return s, nil
}

func (g *schemaGen) set(t reflect.Type, s *jsonschema.Schema) { g.opts.TypeSchemas[t] = s }

// prepare registers the schemas of t's graph that jsonschema-go would get
// wrong or refuse.
func (g *schemaGen) prepare(t reflect.Type) error {
	if _, done := g.opts.TypeSchemas[t]; done || t == timeType {
		return nil
	}
	if g.building[t] {
		// t contains itself: inner occurrences are any value (one level
		// is described), the outer one is set when t is done.
		g.set(t, anyValue())
		return nil
	}
	if t.Kind() == reflect.Pointer {
		return g.prepare(t.Elem())
	}
	if t.Implements(schemaTypeIface) {
		g.set(t, reflect.Zero(t).Interface().(schemaType).JSONSchema())
		return nil
	}
	pt := reflect.PointerTo(t)
	switch {
	case t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler):
		g.set(t, anyValue()) // its own JSON
		return nil
	case t.Implements(textMarshaler) || pt.Implements(textMarshaler):
		g.set(t, &jsonschema.Schema{Type: "string"})
		return nil
	}
	switch t.Kind() {
	case reflect.Array:
		return g.prepare(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(jsonMarshaler) && !t.Elem().Implements(textMarshaler) {
			g.set(t, &jsonschema.Schema{Types: []string{"string", "null"}}) // base64
			return nil
		}
		return g.prepare(t.Elem())
	case reflect.Map:
		if err := g.prepare(t.Elem()); err != nil {
			return err
		}
		elem, err := jsonschema.ForType(t.Elem(), &g.opts)
		if err != nil {
			return err
		}
		g.set(t, &jsonschema.Schema{Types: []string{"object", "null"}, AdditionalProperties: elem})
		return nil
	case reflect.Struct:
		return g.prepareStruct(t)
	}
	return nil
}

func (g *schemaGen) prepareStruct(t reflect.Type) error {
	g.building[t] = true
	fields, own := jsonFields(t)
	for _, f := range fields {
		if err := g.prepare(f.typ); err != nil {
			return err
		}
	}
	delete(g.building, t)
	_, recursive := g.opts.TypeSchemas[t]
	if !own && !recursive {
		return nil // jsonschema-go's struct rules are encoding/json's here
	}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, f := range fields {
		fs := &jsonschema.Schema{Type: "string"}
		if !f.asString {
			var err error
			if fs, err = jsonschema.ForType(f.typ, &g.opts); err != nil {
				return fmt.Errorf("field %s of %s: %w", f.name, t, err)
			}
		}
		if f.desc != "" {
			fs.Description = f.desc
		}
		s.Properties[f.name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.name)
		if !f.optional {
			s.Required = append(s.Required, f.name)
		}
	}
	g.set(t, s)
	return nil
}

// finish makes the generated schema say what vx's JSON does: an argument
// is never null (an optional one is absent); an answer's fields are all
// optional to a reader (omitempty ones may be absent) and "null" is listed
// last.
func (g *schemaGen) finish(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 && slices.Contains(s.Types, "null") {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if g.output {
			types = append(types, "null")
		}
		s.Types = types
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		}
	}
	if g.output {
		s.Required = nil
	} else if s.Type == "string" && s.MinLength == nil && s.Enum == nil {
		// A string argument holds something other than blanks.
		s.MinLength = jsonschema.Ptr(1)
		if s.Pattern == "" {
			s.Pattern = notBlank
		}
	}
	for _, p := range s.Properties {
		g.finish(p)
	}
	g.finish(s.Items)
	if s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil {
		g.finish(s.AdditionalProperties)
	}
	for _, a := range s.AnyOf {
		g.finish(a)
	}
}

// jsonField is a field encoding/json writes.
type jsonField struct {
	name     string
	typ      reflect.Type
	desc     string // the jsonschema tag
	depth    int
	tagged   bool
	optional bool // omitempty or omitzero
	asString bool // the ",string" option on a scalar
}

// jsonFields lists the fields of t that encoding/json writes, with its
// rule for names that repeat: the shallowest wins, then the one a tag
// named, and when that still leaves two, neither is written. own is true
// when jsonschema-go's reading (reflect.VisibleFields, embedded structs
// always flattened, no ",string") would differ.
func jsonFields(t reflect.Type) (fields []jsonField, own bool) {
	var all []jsonField
	collectFields(t, 0, map[reflect.Type]bool{}, &all, &own)
	byName := map[string][]jsonField{}
	var order []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	for _, name := range order {
		if f, ok := dominant(byName[name]); ok {
			fields = append(fields, f)
		}
	}
	return fields, own
}

func dominant(fs []jsonField) (jsonField, bool) {
	minDepth := fs[0].depth
	for _, f := range fs {
		minDepth = min(minDepth, f.depth)
	}
	var top, tagged []jsonField
	for _, f := range fs {
		if f.depth == minDepth {
			top = append(top, f)
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
	}
	switch {
	case len(top) == 1:
		return top[0], true
	case len(tagged) == 1:
		return tagged[0], true
	}
	return jsonField{}, false
}

func collectFields(t reflect.Type, depth int, visiting map[reflect.Type]bool, out *[]jsonField, own *bool) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		opts = "," + opts + ","
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous {
			*own = true
			if !f.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
			if name == "" && ft.Kind() == reflect.Struct {
				collectFields(ft, depth+1, visiting, out, own)
				continue
			}
		} else if !f.IsExported() {
			continue
		}
		jf := jsonField{name: name, typ: f.Type, desc: f.Tag.Get("jsonschema"), depth: depth, tagged: name != "",
			optional: strings.Contains(opts, ",omitempty,") || strings.Contains(opts, ",omitzero,")}
		if name == "" {
			jf.name = f.Name
		}
		if strings.Contains(opts, ",string,") {
			switch ft.Kind() {
			case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
				reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
				jf.asString, *own = true, true
			}
		}
		*out = append(*out, jf)
	}
}

// The schemas of a type never change: the catalog, rebuilt on every
// configuration reload, derives each once.
var outputSchemas, inputSchemas sync.Map // reflect.Type → json.RawMessage, *inputSchemaOf

type inputSchemaOf struct {
	raw      json.RawMessage
	resolved *jsonschema.Resolved
	err      error
}

// OutputSchema is the JSON Schema of an answer of v's type.
func OutputSchema(v any) json.RawMessage {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if raw, ok := outputSchemas.Load(t); ok {
		return raw.(json.RawMessage)
	}
	raw := deriveOutputSchema(t)
	outputSchemas.Store(t, raw)
	return raw
}

func deriveOutputSchema(t reflect.Type) json.RawMessage {
	raw, err := schemaJSON(newSchemaGen(true), t)
	if err != nil {
		// A type no schema describes is a declaration bug the catalog's
		// tests catch; advertise no promise rather than a wrong one.
		return json.RawMessage(`{"type":"object"}`)
	}
	return raw
}

// InputSchema is the JSON Schema of an input struct type, resolved for
// validating arguments.
func InputSchema(t reflect.Type) (json.RawMessage, *jsonschema.Resolved, error) {
	if s, ok := inputSchemas.Load(t); ok {
		s := s.(*inputSchemaOf)
		return s.raw, s.resolved, s.err
	}
	raw, rs, err := deriveInputSchema(t)
	inputSchemas.Store(t, &inputSchemaOf{raw, rs, err})
	return raw, rs, err
}

func deriveInputSchema(t reflect.Type) (json.RawMessage, *jsonschema.Resolved, error) {
	raw, err := schemaJSON(newSchemaGen(false), t)
	if err != nil {
		return nil, nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, err
	}
	return raw, rs, nil
}

func schemaJSON(g *schemaGen, t reflect.Type) (json.RawMessage, error) {
	s, err := g.schemaOf(t)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	if s.Properties == nil && s.Type == "object" {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	return json.Marshal(s)
}
