package vx

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/opkit"
)

// A question verb's flags and positionals fill the operation's input
// struct, as the MCP tool's arguments do. The struct declares them next to
// its JSON tags: `flag:"run" arg:"ID" help:"..."` for a flag (its kind
// follows the field's type), `pos:"task"` for a positional (`pos:"query..."`
// joins the rest). A refusal of a field (*opkit.Refusal) names it as the
// command line spells it: --run, task.

var (
	affectedType = reflect.TypeFor[ops.Affected]()
	switchType   = reflect.TypeFor[flagSwitch]()
)

// flagSwitch is a field a boolean flag sets (init's --force sets the mode).
type flagSwitch interface{ FlagOn(on bool) }

// boundField is one input field the command line fills.
type boundField struct {
	owner reflect.Type // the input struct type
	json  string       // the argument's JSON name, as a refusal names it
	flag  string       // the flag, or "" for a positional
	pos   string       // the positional's name; a "..." suffix joins the rest
	index []int
	typ   reflect.Type
	spec  cmdline.Spec
}

// binding is a verb's bound fields, from one or more input types (vx last
// answers three operations).
type binding struct {
	verb   string
	fields []boundField
}

func bind(verb string, inputs ...reflect.Type) *binding {
	b := &binding{verb: verb}
	for _, t := range inputs {
		for _, f := range reflect.VisibleFields(t) {
			flag, pos := f.Tag.Get("flag"), f.Tag.Get("pos")
			if flag == "" && pos == "" {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			bf := boundField{owner: t, json: name, flag: flag, pos: pos, index: f.Index, typ: f.Type}
			if flag != "" {
				bf.spec = cmdline.Spec{Kind: flagKind(f.Type), Arg: f.Tag.Get("arg"), Help: f.Tag.Get("help")}
			}
			b.fields = append(b.fields, bf)
		}
	}
	return b
}

// flagKind is how a field's type takes its value on the command line.
func flagKind(t reflect.Type) cmdline.Kind {
	switch {
	case t == affectedType:
		return cmdline.Optional
	case reflect.PointerTo(t).Implements(switchType), t.Kind() == reflect.Bool || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool:
		return cmdline.Bool
	case t.Kind() == reflect.Slice:
		return cmdline.Multi
	}
	return cmdline.Value
}

// specs are the bound flags plus the verb's own (format, list…).
func (b *binding) specs(own map[string]cmdline.Spec) map[string]cmdline.Spec {
	out := map[string]cmdline.Spec{}
	for _, f := range b.fields {
		if f.flag != "" {
			if _, dup := out[f.flag]; !dup {
				out[f.flag] = f.spec
			}
		}
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// fill sets in's bound fields (in points to one of the bound types) from
// the command line. A *bool flag is always set: absent is false, the
// command line's default, whatever the operation's default for an agent.
func (b *binding) fill(a *cmdline.Args, in any) error {
	v := reflect.ValueOf(in).Elem()
	pos := 0
	for _, f := range b.fields {
		if f.owner != v.Type() {
			continue
		}
		fv := v.FieldByIndex(f.index)
		if f.pos != "" {
			if strings.HasSuffix(f.pos, "...") {
				fv.SetString(strings.Join(a.Pos()[pos:], " "))
				pos = len(a.Pos())
			} else if pos < len(a.Pos()) {
				fv.SetString(a.Pos()[pos])
				pos++
			}
			continue
		}
		if err := fillFlag(a, f, fv); err != nil {
			return err
		}
	}
	// What the operation's Call checks, checked as the command line
	// spells the arguments.
	return b.refusal(opkit.Check(in))
}

func fillFlag(a *cmdline.Args, f boundField, fv reflect.Value) error {
	t := f.typ
	switch {
	case t == affectedType:
		if a.Has(f.flag) {
			fv.Set(reflect.ValueOf(ops.AffectedOn(a.Str(f.flag))))
		}
	case reflect.PointerTo(t).Implements(switchType):
		fv.Addr().Interface().(flagSwitch).FlagOn(a.Bool(f.flag))
	case t.Kind() == reflect.Bool:
		fv.SetBool(a.Bool(f.flag))
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool:
		p := reflect.New(t.Elem())
		p.Elem().SetBool(a.Bool(f.flag))
		fv.Set(p)
	case t.Kind() == reflect.Slice:
		if list := a.List(f.flag); len(list) > 0 {
			fv.Set(reflect.ValueOf(list).Convert(t))
		}
	case !a.Has(f.flag):
	case t.Kind() == reflect.Int:
		n, err := a.Int(f.flag, 0)
		if err != nil {
			return cmdline.UsageError(err.Error())
		}
		fv.SetInt(int64(n))
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Int:
		n, err := a.Int(f.flag, 0)
		if err != nil {
			return cmdline.UsageError(err.Error())
		}
		p := reflect.New(t.Elem())
		p.Elem().SetInt(int64(n))
		fv.Set(p)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.String:
		p := reflect.New(t.Elem())
		p.Elem().SetString(a.Str(f.flag))
		fv.Set(p)
	case t.Kind() == reflect.String:
		fv.SetString(a.Str(f.flag))
	default:
		return fmt.Errorf("--%s: its field type %s has no command-line binding", f.flag, t)
	}
	return nil
}

// refusal renders an operation's refusal of an argument as a usage error
// naming it as the command line spells it.
func (b *binding) refusal(err error) error {
	var ae *opkit.Refusal
	if !errors.As(err, &ae) {
		return err
	}
	name := ae.Arg
	if b != nil {
		for _, f := range b.fields {
			if f.json == ae.Arg {
				name = f.pos
				if f.flag != "" {
					name = "--" + f.flag
				}
				name = strings.TrimSuffix(name, "...")
				break
			}
		}
	}
	return cmdline.UsageError(ae.Named(name))
}
