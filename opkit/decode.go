package opkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// DecodeInput fills the input struct dst points to from raw, a JSON
// object of arguments, strictly: a string holding NUL or bytes that are
// not UTF-8, at any depth, is refused first (see CheckArgsText); then
// everything the input's JSON Schema (InputSchema) says — types, names,
// required arguments, enums, patterns, bounds — with one line naming the
// argument; nothing is coerced. The input's rule across its arguments is
// Check's (Decode runs both, in order).
func DecodeInput(raw json.RawMessage, dst any) error {
	if err := CheckArgsText(raw); err != nil {
		return err
	}
	obj, err := argsObject(raw)
	if err != nil || obj == nil {
		return Refuse("", "arguments must be a JSON object")
	}
	if err := validateInput(reflect.TypeOf(dst).Elem(), obj); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		// The schema accepted what the Go type cannot hold: a
		// declaration bug the catalog's tests decode every input for.
		return fmt.Errorf("arguments accepted by the schema do not fill %T: %w", dst, err)
	}
	return nil
}

// argsObject decodes raw, a JSON object of arguments, keeping numbers
// exact (json.Number) for the schema's check.
func argsObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	err := dec.Decode(&obj)
	return obj, err
}

// validateInput refuses obj, decoded arguments, unless the input schema
// of t accepts them.
func validateInput(t reflect.Type, obj map[string]any) error {
	_, schema, err := InputSchema(t)
	if err != nil {
		return err
	}
	return validateArgs(schema, obj, true)
}

// Decode fills the input in points to from an agent's arguments and
// checks it, in one order: DecodeInput (what the schema says), then the
// input's own rule (Validate). A command line's filled input meets the
// same rules, in the same order, through Check.
func Decode(args json.RawMessage, in any) error {
	if err := DecodeInput(args, in); err != nil {
		return err
	}
	return validateAcross(in)
}
