package opkit

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// The words of a refusal: what a schema's own keywords say is wrong with
// a value (keywords), what a schema accepts (phrase) and what was given
// (given), each a short phrase fit for one line.

// keywords says what s's own keywords refuse in v, or "" when they
// accept it (then a combination, allOf to if, refused it).
func (e *explainer) keywords(s *jsonschema.Schema, v any) string {
	if f, ok := v.(float64); ok && math.IsInf(f, 0) && (takesType(s, "number") || takesType(s, "integer")) {
		return mustBeFinite // validateArgs says which number
	}
	if (s.Type != "" || s.Types != nil) && !takesType(s, jsonTypeOf(v)) {
		return fmt.Sprintf("must be %s, not %s", e.typePhrase(s), given(s, v))
	}
	if len(s.Enum) > 0 && !inEnum(s.Enum, v) {
		return fmt.Sprintf("must be %s, not %s", e.phrase(s), given(s, v))
	}
	if s.Const != nil && !sameJSON(*s.Const, v) {
		return fmt.Sprintf("must be %s, not %s", jsonText(*s.Const), given(s, v))
	}
	switch x := v.(type) {
	case float64:
		return numberWords(s, x)
	case string:
		return stringWords(s, x)
	case []any:
		return arrayWords(s, x)
	case map[string]any:
		return objectWords(s, x)
	}
	return ""
}

func numberWords(s *jsonschema.Schema, x float64) string {
	n := fmtNum(x)
	switch {
	case s.Maximum != nil && x > *s.Maximum:
		return fmt.Sprintf("%s is more than the maximum %s", n, fmtNum(*s.Maximum))
	case s.Minimum != nil && x < *s.Minimum:
		return fmt.Sprintf("%s is less than the minimum %s", n, fmtNum(*s.Minimum))
	case s.ExclusiveMaximum != nil && x >= *s.ExclusiveMaximum:
		return fmt.Sprintf("must be less than %s, not %s", fmtNum(*s.ExclusiveMaximum), n)
	case s.ExclusiveMinimum != nil && x <= *s.ExclusiveMinimum:
		return fmt.Sprintf("must be more than %s, not %s", fmtNum(*s.ExclusiveMinimum), n)
	case s.MultipleOf != nil && *s.MultipleOf > 0 && !isMultiple(x, *s.MultipleOf):
		return fmt.Sprintf("must be a multiple of %s, not %s", fmtNum(*s.MultipleOf), n)
	}
	return ""
}

func isMultiple(x, m float64) bool {
	q := x / m
	return !math.IsInf(q, 0) && q == math.Trunc(q)
}

func stringWords(s *jsonschema.Schema, x string) string {
	n := utf8.RuneCountInString(x)
	switch {
	case s.MinLength != nil && n < *s.MinLength && *s.MinLength == 1:
		return "must not be an empty string"
	case s.MinLength != nil && n < *s.MinLength:
		return fmt.Sprintf("must be at least %d characters long, not %d: %s", *s.MinLength, n, quote(x))
	case s.MaxLength != nil && n > *s.MaxLength:
		return fmt.Sprintf("must be at most %d characters long, not %d: %s", *s.MaxLength, n, quote(x))
	case s.Pattern != "" && !matches(s.Pattern, x):
		if s.Pattern == notBlank {
			return "must hold something other than blanks, not " + given(s, x)
		}
		return fmt.Sprintf("must match the pattern %s, not %s", pattern(s.Pattern), quote(x))
	}
	return ""
}

func matches(pat, x string) bool {
	re, err := regexp.Compile(pat)
	return err != nil || re.MatchString(x)
}

func arrayWords(s *jsonschema.Schema, x []any) string {
	switch {
	case s.MinItems != nil && len(x) < *s.MinItems:
		return fmt.Sprintf("must hold at least %s, not %d", count(*s.MinItems, "item"), len(x))
	case s.MaxItems != nil && len(x) > *s.MaxItems:
		return fmt.Sprintf("must hold at most %s, not %d", count(*s.MaxItems, "item"), len(x))
	case s.UniqueItems:
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if sameJSON(x[i], x[j]) {
					return fmt.Sprintf("must hold each item once, not [%d] and [%d] both %s", i, j, given(nil, x[i]))
				}
			}
		}
	}
	return ""
}

func objectWords(s *jsonschema.Schema, x map[string]any) string {
	switch {
	case s.MinProperties != nil && len(x) < *s.MinProperties:
		return fmt.Sprintf("must have at least %s, not %d", count(*s.MinProperties, "member"), len(x))
	case s.MaxProperties != nil && len(x) > *s.MaxProperties:
		return fmt.Sprintf("must have at most %s, not %d", count(*s.MaxProperties, "member"), len(x))
	}
	return ""
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// phrase says what s accepts: its title (vx's own schemas), else what
// its enum, const, alternatives or type say.
func (e *explainer) phrase(s *jsonschema.Schema) string {
	s = e.deref(s)
	switch {
	case e.titles && s.Title != "":
		return s.Title
	case len(s.Enum) == 1:
		return jsonText(s.Enum[0])
	case len(s.Enum) > 0:
		vals := make([]string, 0, len(s.Enum))
		for _, v := range s.Enum {
			vals = append(vals, jsonText(v))
		}
		return "one of " + list(vals)
	case s.Const != nil:
		return jsonText(*s.Const)
	case len(s.AnyOf) > 0:
		return e.phrases(s.AnyOf)
	case len(s.OneOf) > 0:
		return e.phrases(s.OneOf)
	}
	return e.typePhrase(s)
}

// typePhrase says which JSON types s takes.
func (e *explainer) typePhrase(s *jsonschema.Schema) string {
	if e.titles && s.Title != "" {
		return s.Title
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) == 0 {
		return "a JSON value"
	}
	words := make([]string, len(types))
	for i, t := range types {
		words[i] = typeWord(t)
	}
	return strings.Join(words, " or ")
}

func typeWord(t string) string {
	switch t {
	case "boolean":
		return "true or false"
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "string":
		return "a string"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return t // null
}

// given says what v is, as a refusal says it: its type when s does not
// take that type at all, else the value itself (a string quoted and cut
// short, a number as written).
func given(s *jsonschema.Schema, v any) string {
	if s != nil && !takesType(s, jsonTypeOf(v)) {
		if f, ok := v.(float64); ok && takesType(s, "integer") {
			return fmtNum(f) // a number where an integer goes
		}
		return typeName(v)
	}
	switch x := v.(type) {
	case string:
		if x == "" {
			return "an empty string"
		}
		if strings.TrimSpace(x) == "" {
			return "blanks only"
		}
		return quote(x)
	case float64:
		return fmtNum(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		if len(x) == 0 {
			return "an empty array"
		}
	}
	return typeName(v)
}

// quote is a string value as a refusal quotes it: cut short, on one line.
func quote(x string) string {
	const most = 64
	if utf8.RuneCountInString(x) > most {
		return strconv.Quote(string([]rune(x)[:most])) + "…"
	}
	return strconv.Quote(x)
}

// pattern is a schema's pattern as a refusal shows it: as written, or
// quoted when it holds what would break the line.
func pattern(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }) || utf8.RuneCountInString(p) > 80 {
		return quote(p)
	}
	return p
}

// fmtNum writes a number as a person would: 1000000, not 1e+06; 2.5;
// an exponent only past 1e21.
func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// jsonText is a schema's value (an enum's, a const's) as JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if sameJSON(e, v) {
			return true
		}
	}
	return false
}

// sameJSON reports whether a and b are the same JSON value (numbers
// compared as numbers, whatever Go type a schema's value decoded into).
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return reflect.DeepEqual(a, b)
	}
	var na, nb any
	if json.Unmarshal(ja, &na) != nil || json.Unmarshal(jb, &nb) != nil {
		return false
	}
	return reflect.DeepEqual(na, nb)
}

// mustBeFinite is the start of the refusal of a number no float64 holds.
const mustBeFinite = "must be a finite number"

// takesType reports whether s takes values of JSON type t ("integer" for
// a whole number: a schema of numbers takes it too).
func takesType(s *jsonschema.Schema, t string) bool {
	if s.Type == "" && s.Types == nil {
		alts := append(slices.Clip(s.AnyOf), s.OneOf...)
		for _, a := range alts {
			if takesType(a, t) {
				return true
			}
		}
		return len(alts) == 0
	}
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	for _, w := range want {
		if w == t || w == "number" && t == "integer" {
			return true
		}
	}
	return false
}

// jsonTypeOf is v's JSON type, "integer" for a whole number.
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// list joins words with commas, the first few of a long list only (a
// refusal is one line).
func list(words []string) string {
	const most = 12
	if len(words) > most {
		return fmt.Sprintf("%s… (%d in all)", strings.Join(words[:most], ", "), len(words))
	}
	return strings.Join(words, ", ")
}
