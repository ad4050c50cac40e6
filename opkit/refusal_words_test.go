package opkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDataSchemaRefusalWords: arguments a plugin tool's schema (data,
// not a Go type) refuses are refused with one line that names the
// argument and says in plain words what is wrong: the bound broken, the
// type wanted and the value given, the argument missing. The schema's
// title is a label there, never the words of the refusal.
func TestDataSchemaRefusalWords(t *testing.T) {
	const n = `{"type": "object", "properties": {"n": {"type": "integer", "maximum": 3, "title": "N"}}, "required": ["n"]}`
	for _, tc := range []struct {
		name, schema, args, want string
	}{
		{"above the maximum", n, `{"n": 5}`, `argument "n": 5 is more than the maximum 3`},
		{"a fraction for an integer", n, `{"n": 2.5}`, `argument "n": must be an integer, not 2.5`},
		{"missing", n, `{}`, `argument "n": required but missing`},
		{"a string for an integer", n, `{"n": "5"}`, `argument "n": must be an integer, not a string`},
		{"huge", n, `{"n": 1e400}`, `argument "n": must be a finite number, not 1e400`},
		{"a million", n, `{"n": 1000000}`, `argument "n": 1000000 is more than the maximum 3`},
		{"an unknown argument beside a bad one, additional allowed", n, `{"a": 1, "n": 9}`, `argument "n": 9 is more than the maximum 3`},
		{"below the minimum", num(`"minimum": 0`), `{"x": -1}`, `argument "x": -1 is less than the minimum 0`},
		{"exclusive maximum", num(`"exclusiveMaximum": 3`), `{"x": 3}`, `argument "x": must be less than 3, not 3`},
		{"exclusive minimum", num(`"exclusiveMinimum": 0`), `{"x": 0}`, `argument "x": must be more than 0, not 0`},
		{"multiple of", num(`"multipleOf": 0.5`), `{"x": 0.3}`, `argument "x": must be a multiple of 0.5, not 0.3`},
		{"string enum", prop(`{"enum": ["a", "b"]}`), `{"x": "c"}`, `argument "x": must be one of "a", "b", not "c"`},
		{"number enum", prop(`{"enum": [1, 2]}`), `{"x": 3}`, `argument "x": must be one of 1, 2, not 3`},
		{"const", prop(`{"const": "on"}`), `{"x": "off"}`, `argument "x": must be "on", not "off"`},
		{"min length", prop(`{"type": "string", "minLength": 2}`), `{"x": "a"}`, `argument "x": must be at least 2 characters long, not 1: "a"`},
		{"empty string", prop(`{"type": "string", "minLength": 1}`), `{"x": ""}`, `argument "x": must not be an empty string`},
		{"max length, in characters", prop(`{"type": "string", "maxLength": 3}`), `{"x": "üñíç"}`, `argument "x": must be at most 3 characters long, not 4: "üñíç"`},
		{"pattern", prop(`{"type": "string", "pattern": "^[a-z]+$"}`), `{"x": "A1"}`, `argument "x": must match the pattern ^[a-z]+$, not "A1"`},
		{"a long value is cut short", prop(`{"type": "string", "pattern": "^a$"}`), `{"x": "` + strings.Repeat("é", 500) + `"}`,
			`argument "x": must match the pattern ^a$, not "` + strings.Repeat("é", 64) + `"…`},
		{"boolean", prop(`{"type": "boolean"}`), `{"x": "yes"}`, `argument "x": must be true or false, not a string`},
		{"type list", prop(`{"type": ["string", "null"]}`), `{"x": 5}`, `argument "x": must be a string or null, not a number`},
		{"no additional", `{"type": "object", "properties": {"n": {}}, "additionalProperties": false}`, `{"nn": 1}`,
			`argument "nn": no such argument (did you mean n?) (this tool takes: n)`},
		{"additional schema", `{"type": "object", "additionalProperties": {"type": "string"}}`, `{"a": 1}`, `argument "a": must be a string, not a number`},
		{"pattern properties", `{"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}`, `{"x-a": 1}`,
			`argument "x-a": must be a string, not a number`},
		{"outside pattern properties", `{"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}`, `{"y": "1"}`,
			`argument "y": no such argument (this tool takes: names matching ^x-)`},
		{"property names", `{"type": "object", "propertyNames": {"maxLength": 2}}`, `{"abc": 1}`,
			`argument "abc": is not a name this tool takes: must be at most 2 characters long, not 3: "abc"`},
		{"nested missing", nested, `{"opts": {}}`, `argument "opts.depth": required but missing: how deep`},
		{"nested bound", nested, `{"opts": {"depth": 0}}`, `argument "opts.depth": 0 is less than the minimum 1`},
		{"nested unknown", nested, `{"opts": {"depht": 2}}`, `argument "opts.depht": no such argument (did you mean depth?) (opts takes: depth)`},
		{"nested unknown, nothing close", nested, `{"opts": {"zzzzzz": 2}}`, `argument "opts.zzzzzz": no such argument (opts takes: depth)`},
		{"dependent required", `{"type": "object", "properties": {"a": {}, "b": {}}, "dependentRequired": {"a": ["b"]}}`, `{"a": 1}`,
			`argument "b": required when "a" is given but missing`},
		{"too few items", tags, `{"tags": []}`, `argument "tags": must hold at least 1 item, not 0`},
		{"too many items", tags, `{"tags": ["a", "b", "c"]}`, `argument "tags": must hold at most 2 items, not 3`},
		{"an item", tags, `{"tags": ["abcd"]}`, `argument "tags[0]": must be at most 3 characters long, not 4: "abcd"`},
		{"an item of the wrong type", tags, `{"tags": [1]}`, `argument "tags[0]": must be a string, not a number`},
		{"repeated items", tags, `{"tags": ["a", "a"]}`, `argument "tags": must hold each item once, not [0] and [1] both "a"`},
		{"prefix items", prop(`{"type": "array", "prefixItems": [{"type": "integer"}], "items": false}`), `{"x": [1, 2]}`,
			`argument "x": must hold at most 1 items, not 2`},
		{"object members", prop(`{"type": "object", "minProperties": 1}`), `{"x": {}}`, `argument "x": must have at least 1 member, not 0`},
		{"any of, one type fits", prop(`{"anyOf": [{"type": "string", "maxLength": 1}, {"type": "integer"}]}`), `{"x": "ab"}`,
			`argument "x": must be at most 1 characters long, not 2: "ab"`},
		{"any of, no type fits", prop(`{"anyOf": [{"type": "string"}, {"type": "integer"}]}`), `{"x": true}`,
			`argument "x": must be a string or an integer, not a boolean`},
		{"one of, both fit", prop(`{"oneOf": [{"type": "number"}, {"type": "integer"}]}`), `{"x": 1}`,
			`argument "x": must match exactly one of its alternatives (a number or an integer), not 2 of them: 1`},
		{"not", prop(`{"not": {"const": "x"}}`), `{"x": "x"}`, `argument "x": must not be "x" ("x" is refused here)`},
		{"a $ref", `{"type": "object", "$defs": {"pos": {"type": "integer", "minimum": 0}}, "properties": {"x": {"$ref": "#/$defs/pos"}}}`, `{"x": -1}`,
			`argument "x": -1 is less than the minimum 0`},
		{"a $ref inside an item", `{"type": "object", "$defs": {"pos": {"type": "integer", "minimum": 0}}, "properties": {"x": {"type": "array", "items": {"$ref": "#/$defs/pos"}}}}`,
			`{"x": [1, -2]}`, `argument "x[1]": -2 is less than the minimum 0`},
		{"if then", prop(`{"if": {"type": "string"}, "then": {"minLength": 3}}`), `{"x": "ab"}`, `argument "x": must be at least 3 characters long, not 2: "ab"`},
		{"a long enum", prop(`{"enum": [1,2,3,4,5,6,7,8,9,10,11,12,13,14]}`), `{"x": 0}`,
			`argument "x": must be one of 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12… (14 in all), not 0`},
		{"a unicode name", `{"type": "object", "properties": {"ñ": {"type": "integer"}}}`, `{"ñ": "x"}`, `argument "ñ": must be an integer, not a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckArgs(json.RawMessage(tc.args), json.RawMessage(tc.schema))
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s against %s:\n got %v\nwant %s", tc.args, tc.schema, err, tc.want)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("a refusal of two lines: %q", err)
			}
		})
	}
}

const (
	nested = `{"type": "object", "properties": {"opts": {"type": "object", "properties": {"depth": {"type": "integer", "minimum": 1, "description": "how deep"}}, "required": ["depth"], "additionalProperties": false}}}`
	tags   = `{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 1, "maxItems": 2, "uniqueItems": true}}}`
)

// prop is an object schema whose one property x has schema sub.
func prop(sub string) string {
	return `{"type": "object", "properties": {"x": ` + sub + `}}`
}

// num is prop for a number with the keywords kw.
func num(kw string) string { return prop(`{"type": "number", ` + kw + `}`) }

type wordsInput struct {
	N      int    `json:"n"`
	Task   TaskID `json:"task,omitempty"`
	Bucket Bucket `json:"bucket,omitempty"`
	Name   string `json:"name,omitempty"`
	Target string `json:"target" jsonschema:"the task to show"`
}

// TestOwnSchemaRefusalWords: vx's own inputs, whose schemas come from Go
// types, are refused in the same plain words, with a type's title as
// what is accepted where it has one.
func TestOwnSchemaRefusalWords(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"n": 2.5, "target": "x"}`, `argument "n": must be an integer, not 2.5`},
		{`{"n": 1}`, `argument "target": required but missing: the task to show`},
		{`{"n": 1, "target": "x", "task": "web"}`, `argument "task": must be a task id project#task, neither half blank (e.g. web#build), not "web"`},
		{`{"n": 1, "target": "x", "bucket": "week"}`, `argument "bucket": must be one of "hour", "day", not "week"`},
		{`{"n": 1, "target": "x", "name": " "}`, `argument "name": must hold something other than blanks, not blanks only`},
		{`{"n": 1, "target": ""}`, `argument "target": must not be an empty string`},
		{`{"n": 1, "target": "x", "tsak": "a#b"}`, `argument "tsak": no such argument (did you mean task?) (this tool takes: bucket, n, name, target, task)`},
	} {
		var in wordsInput
		if err := DecodeInput(json.RawMessage(tc.args), &in); err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.args, err, tc.want)
		}
	}
}
