package opkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/vzn/vx/internal/suggest"
)

// Decoder is an argument type that fills itself from an agent's JSON
// value (decoded with UseNumber), refusing it with a line naming name.
type Decoder interface {
	DecodeArg(name string, v any) error
}

// inputField is one JSON argument of an input struct.
type inputField struct {
	Name     string // the JSON name
	Desc     string // the jsonschema tag: the argument's description
	Required bool   // no omitempty / omitzero
	Index    []int
	Type     reflect.Type
}

var fieldCache sync.Map // reflect.Type → []inputField

// inputFields lists the JSON arguments of the input struct type t, as
// encoding/json and the schema see them: exported, not "-", embedded
// structs flattened (reflect.VisibleFields' rules).
func inputFields(t reflect.Type) []inputField {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]inputField)
	}
	var out []inputField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		opts = "," + opts + ","
		out = append(out, inputField{Name: name, Desc: f.Tag.Get("jsonschema"), Index: f.Index, Type: f.Type,
			Required: !strings.Contains(opts, ",omitempty,") && !strings.Contains(opts, ",omitzero,")})
	}
	fieldCache.Store(t, out)
	return out
}

// DecodeInput fills the input struct dst points to from raw, a JSON
// object of arguments, strictly: a key the input does not have, a value of
// the wrong type, an empty string or a missing required argument is
// refused with one line naming the argument; nothing is coerced. A
// string holding NUL or bytes that are not UTF-8, at any depth, is
// refused first (see CheckText). The rules beyond the shape are Check's
// (Decode runs both, in order).
func DecodeInput(raw json.RawMessage, dst any) error {
	if err := CheckArgsText(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return Refuse("", "arguments must be a JSON object")
	}
	return decodeObject("", obj, reflect.ValueOf(dst).Elem())
}

func decodeObject(prefix string, obj map[string]any, v reflect.Value) error {
	fields := inputFields(v.Type())
	byName := map[string]inputField{}
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	sort.Strings(names)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := byName[k]
		if !ok {
			accepted := "none"
			if len(names) > 0 {
				accepted = strings.Join(names, ", ")
			}
			return Refuse(prefix+k, "no such argument%s (this tool takes: %s)", suggest.Close(k, names), accepted)
		}
		if err := decodeValue(prefix+k, obj[k], v.FieldByIndex(f.Index)); err != nil {
			return err
		}
	}
	for _, f := range fields {
		if _, ok := obj[f.Name]; f.Required && !ok {
			return Refuse(prefix+f.Name, "missing, and required: %s", f.Desc)
		}
	}
	return nil
}

func decodeValue(name string, v any, fv reflect.Value) error {
	if fv.Kind() == reflect.Pointer {
		p := reflect.New(fv.Type().Elem())
		if err := decodeValue(name, v, p.Elem()); err != nil {
			return err
		}
		fv.Set(p)
		return nil
	}
	if d, ok := fv.Addr().Interface().(Decoder); ok {
		return d.DecodeArg(name, v)
	}
	switch fv.Kind() {
	case reflect.String:
		s, err := NonEmpty(name, v, "a non-empty string")
		fv.SetString(s)
		return err
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return Refuse(name, "must be true or false, not %s", TypeName(v))
		}
		fv.SetBool(b)
		return nil
	case reflect.Slice:
		if fv.Type().Elem().Kind() != reflect.String {
			break
		}
		out, err := StringArray(name, v)
		if err != nil {
			return err
		}
		fv.Set(reflect.ValueOf(out).Convert(fv.Type()))
		return nil
	case reflect.Struct:
		o, ok := v.(map[string]any)
		if !ok {
			return Refuse(name, "must be an object, not %s", TypeName(v))
		}
		return decodeObject(name+".", o, fv)
	}
	// A field type no argument rule covers is a declaration bug; the
	// catalog's tests decode every operation's input.
	return fmt.Errorf("argument %q: its type %s has no argument decoder", name, fv.Type())
}

// Decode fills the input in points to from an agent's arguments, in one
// order: DecodeInput (the shape: types, names, required), Check (each
// argument's rule, then the input's), each refusal in vx's words naming
// the argument; then the arguments against the schema the input
// advertises (InputSchema), which by then can only fail on a declaration
// bug, so that what is advertised and what is accepted never disagree.
func Decode(args json.RawMessage, in any) error {
	if err := DecodeInput(args, in); err != nil {
		return err
	}
	if err := Check(in); err != nil {
		return err
	}
	_, schema, err := InputSchema(reflect.TypeOf(in).Elem())
	if err != nil {
		return err
	}
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return err
	}
	if err := schema.Validate(inst); err != nil {
		return Refuse("", "arguments do not match the tool's inputSchema: %v", err)
	}
	return nil
}
