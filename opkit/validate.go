package opkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// An input's rules are its JSON Schema (InputSchema): the schema decides
// what is accepted, for an agent's arguments and a command line's filled
// input alike, and the explanation (explain.go) only finds the argument
// that broke it and says, in plain words, what is wrong there.

// validateArgs refuses inst, decoded JSON arguments, unless the input
// schema accepts them, naming the innermost argument at fault; then a
// number no float64 holds, which a schema cannot refuse. titles says
// whether the schema's titles are the words a refusal uses for what is
// accepted (vx's own schemas, see args.go); a schema given as data (a
// plugin's) is explained by its keywords alone, its titles being labels.
func validateArgs(root *jsonschema.Resolved, inst any, titles bool) error {
	var huge error
	inst = numbers("", inst, &huge)
	if err := root.Validate(inst); err != nil {
		if _, ok := inst.(map[string]any); !ok {
			return Refuse("", "arguments must be a JSON object")
		}
		err := (&explainer{root: root.Schema(), titles: titles}).explain("", root.Schema(), inst)
		var r, h *Refusal
		if errors.As(err, &r) && errors.As(huge, &h) && r.Arg == h.Arg && strings.HasPrefix(r.Msg, mustBeFinite) {
			return huge // it says which number
		}
		return err
	}
	return huge
}

// numbers makes the JSON numbers in v, decoded with UseNumber, float64s
// (jsonschema-go reads a json.Number as a string), one no float64 holds
// an infinity, and sets *huge to the refusal of the first such, at its
// path.
func numbers(path string, v any, huge *error) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil && *huge == nil {
			*huge = Refuse(path, "%s, not %s", mustBeFinite, x)
		}
		return f
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x[k] = numbers(join(path, k), x[k], huge)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(fmt.Sprintf("%s[%d]", path, i), e, huge)
		}
	}
	return v
}
