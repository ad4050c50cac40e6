package opkit

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// validator is an input with a rule across its arguments (two that may
// not be given together): Validate refuses an input breaking it.
type validator interface {
	Validate() error
}

// Check checks in, a pointer to an input struct, in one order whichever
// surface filled it (DecodeInput for MCP and --input, a command line's
// flags): the input as JSON against its schema (InputSchema, each refusal
// naming the argument as Decode's do), then the input's Validate. Every
// operation made with Define runs it before its function.
func Check(in any) error {
	v := reflect.ValueOf(in)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Errorf("input %s does not encode: %w", v.Type(), err)
	}
	obj, err := argsObject(raw)
	if err != nil {
		return fmt.Errorf("input %s does not decode: %w", v.Type(), err)
	}
	if err := validateInput(v.Type(), obj); err != nil {
		return err
	}
	return validateAcross(in)
}

// validateAcross runs the input's rule across its arguments, if it has one.
func validateAcross(in any) error {
	v := reflect.ValueOf(in)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if val, ok := v.Interface().(validator); ok {
		return val.Validate()
	}
	return nil
}
