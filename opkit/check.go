package opkit

import "reflect"

// checker is an argument type with a rule its JSON Schema cannot say (or
// says and decoding states in words): Check refuses a value breaking it,
// naming the argument arg.
type checker interface {
	Check(arg string) error
}

// validator is an input with a rule across its arguments (two that may
// not be given together): Validate refuses an input breaking it.
type validator interface {
	Validate() error
}

// Check checks in, a pointer to an input struct, in one order whichever
// surface filled it (DecodeInput for MCP and --input, a command line's
// flags): each given argument's own Check, nested objects included, then
// the input's Validate. Every operation made with Define runs it before
// its function.
func Check(in any) error {
	v := reflect.ValueOf(in)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if err := checkFields("", v); err != nil {
		return err
	}
	if val, ok := v.Interface().(validator); ok {
		return val.Validate()
	}
	return nil
}

func checkFields(prefix string, v reflect.Value) error {
	for _, f := range inputFields(v.Type()) {
		if err := checkValue(prefix+f.Name, v.FieldByIndex(f.Index), f.Required); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(name string, fv reflect.Value, required bool) error {
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return nil
		}
		fv = fv.Elem()
	}
	if fv.IsZero() && !required {
		return nil // not given: the operation's default, never refused here
	}
	if c, ok := fv.Interface().(checker); ok {
		return c.Check(name)
	}
	if fv.Kind() == reflect.Struct {
		return checkFields(name+".", fv)
	}
	return nil
}
