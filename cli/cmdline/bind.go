package cmdline

import (
	"fmt"
	"reflect"
	"strings"
)

// Every verb of vx, vxd and vx-platform declares its flags and positionals
// as the fields of a struct (an operation's input, or the verb's own), next
// to their JSON tags: `flag:"run" arg:"ID" help:"..."` for a flag (its kind
// follows the field's type), `pos:"task"` for a positional (`pos:"query..."`
// joins the rest into a string, or takes it whole into a []string). Bind
// reads the tags once; the verb's usage, its parsing and the filled struct
// follow from them, and a refusal of a field names it as the command line
// spells it (ArgName).

// optionalValue is a field type whose flag takes an optional value (--x or
// --x=V, never the next argument): SetOptional gets the value, "" for none,
// when the flag is given.
type optionalValue interface{ SetOptional(v string) }

// switchFlag is a field type a boolean flag sets (init's --force sets a mode).
type switchFlag interface{ FlagOn(on bool) }

// Maybe is a flag with an optional value: Given when it was, with its
// Value ("" for --x alone).
type Maybe struct {
	Given bool
	Value string
}

// SetOptional records the flag as given, with v.
func (m *Maybe) SetOptional(v string) { *m = Maybe{Given: true, Value: v} }

var (
	optionalType = reflect.TypeFor[optionalValue]()
	switchType   = reflect.TypeFor[switchFlag]()
)

// boundField is one struct field the command line fills.
type boundField struct {
	owner reflect.Type // the struct type
	json  string       // the field's JSON name, as an operation's refusal names it
	flag  string       // the flag, or "" for a positional
	pos   string       // the positional's name; a "..." suffix takes the rest
	index []int
	typ   reflect.Type
	spec  spec
}

// Binding is a verb's bound fields, from one or more struct types (vx last
// answers three operations).
type Binding struct {
	fields []boundField
}

// Bind reads the flag, arg, help and pos tags of the struct types.
func Bind(types ...reflect.Type) *Binding {
	b := &Binding{}
	for _, t := range types {
		for _, f := range reflect.VisibleFields(t) {
			flag, pos := f.Tag.Get("flag"), f.Tag.Get("pos")
			if flag == "" && pos == "" {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			bf := boundField{owner: t, json: name, flag: flag, pos: pos, index: f.Index, typ: f.Type}
			if flag != "" {
				bf.spec = spec{kind: flagKind(f.Type), Arg: f.Tag.Get("arg"), Help: f.Tag.Get("help")}
			}
			b.fields = append(b.fields, bf)
		}
	}
	return b
}

// flagKind is how a field's type takes its value on the command line.
func flagKind(t reflect.Type) kind {
	switch {
	case reflect.PointerTo(t).Implements(optionalType):
		return kindOptional
	case reflect.PointerTo(t).Implements(switchType), t.Kind() == reflect.Bool || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool:
		return kindBool
	case t.Kind() == reflect.Slice:
		return kindMulti
	}
	return kindValue
}

// specs are the bound flags, each once.
func (b *Binding) specs() map[string]spec {
	out := map[string]spec{}
	if b == nil {
		return out
	}
	for _, f := range b.fields {
		if f.flag != "" {
			if _, dup := out[f.flag]; !dup {
				out[f.flag] = f.spec
			}
		}
	}
	return out
}

// Fill sets dst's bound fields (dst points to one of the bound types) from
// the command line; a flag not given leaves its field as it was (a
// default), but a bool is always set and a *bool always points: absent is
// false, the command line's default, whatever an operation's default for
// an agent.
func (b *Binding) Fill(a *Args, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	pos := 0
	for _, f := range b.fields {
		if f.owner != v.Type() {
			continue
		}
		fv := v.FieldByIndex(f.index)
		if f.pos != "" {
			pos = fillPos(a, f, fv, pos)
			continue
		}
		if err := fillFlag(a, f, fv); err != nil {
			return err
		}
	}
	return nil
}

// fillPos sets a positional's field from a's positionals from pos on, and
// returns the next one's index.
func fillPos(a *Args, f boundField, fv reflect.Value, pos int) int {
	rest := a.Pos()[min(pos, len(a.Pos())):]
	switch {
	case strings.HasSuffix(f.pos, "...") && fv.Kind() == reflect.Slice:
		fv.Set(reflect.ValueOf(append([]string(nil), rest...)).Convert(fv.Type()))
		return len(a.Pos())
	case strings.HasSuffix(f.pos, "..."):
		fv.SetString(strings.Join(rest, " "))
		return len(a.Pos())
	case len(rest) > 0:
		fv.SetString(rest[0])
		return pos + 1
	}
	return pos
}

func fillFlag(a *Args, f boundField, fv reflect.Value) error {
	t := f.typ
	switch {
	case reflect.PointerTo(t).Implements(optionalType):
		if a.has(f.flag) {
			fv.Addr().Interface().(optionalValue).SetOptional(a.str(f.flag))
		}
	case reflect.PointerTo(t).Implements(switchType):
		fv.Addr().Interface().(switchFlag).FlagOn(a.boolean(f.flag))
	case t.Kind() == reflect.Bool:
		fv.SetBool(a.boolean(f.flag))
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool:
		p := reflect.New(t.Elem())
		p.Elem().SetBool(a.boolean(f.flag))
		fv.Set(p)
	case t.Kind() == reflect.Slice:
		if list := a.list(f.flag); len(list) > 0 {
			fv.Set(reflect.ValueOf(append([]string(nil), list...)).Convert(t))
		}
	case !a.has(f.flag):
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := setValue(a, f.flag, p.Elem()); err != nil {
			return err
		}
		fv.Set(p)
	default:
		return setValue(a, f.flag, fv)
	}
	return nil
}

// setValue sets a string or whole-number field from the flag's value.
func setValue(a *Args, flag string, fv reflect.Value) error {
	switch fv.Kind() {
	case reflect.Int:
		n, err := a.integer(flag, 0)
		if err != nil {
			return UsageError(err.Error())
		}
		fv.SetInt(int64(n))
	case reflect.String:
		fv.SetString(a.str(flag))
	default:
		return fmt.Errorf("--%s: its field type %s has no command-line binding", flag, fv.Type())
	}
	return nil
}

// ArgName is how the command line spells the field whose JSON name is
// json (--run, task), for a refusal that names the argument; false when
// no bound field has that name.
func (b *Binding) ArgName(json string) (string, bool) {
	if b == nil {
		return "", false
	}
	for _, f := range b.fields {
		if f.json == json {
			if f.flag != "" {
				return "--" + f.flag, true
			}
			return strings.TrimSuffix(f.pos, "..."), true
		}
	}
	return "", false
}
