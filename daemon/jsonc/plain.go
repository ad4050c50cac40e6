package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
)

// errNotPlain means DecodePlain could not decode the text as plain JSON.
var errNotPlain = errors.New("not plain JSON")

// DecodePlain decodes src into v (a pointer) when src is plain JSON with
// nothing after the value, as most package.json files are, without
// building hujson's tree; strict refuses unknown fields. On any error v is
// reset to its zero value, and the caller takes the Parse path, which
// reads comments and reports where the problem is.
func DecodePlain(src []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(src))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errNotPlain
		}
	}
	if err != nil {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv.Elem().SetZero()
		}
		return err
	}
	return nil
}
