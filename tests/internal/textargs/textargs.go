// Package textargs builds, from the tools an MCP server lists, one call
// per string argument (at any depth: inside arrays and objects too) and
// per kind of bad text: a NUL character, a byte that is not UTF-8, an
// unpaired surrogate escape. The suites of vxd and of the platform send
// every case and check the refusal: an argument error naming the
// argument. The bad bytes are written into the JSON by hand, as an SDK
// never would (encoding/json replaces invalid UTF-8 with U+FFFD).
package textargs

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bad is one kind of bad text: its JSON spelling and the word a refusal
// of it must use.
type Bad struct {
	Name string
	JSON string // a JSON string literal
	Word string
}

// Bads are the kinds of bad text every string argument must refuse.
var Bads = []Bad{
	{"NUL", `"web\u0000#build"`, "NUL"},
	{"invalid UTF-8", "\"web\xff\xfe#build\"", "UTF-8"},
	{"unpaired surrogate", `"web\ud800#build"`, "UTF-8"},
}

// Case is one tools/call: Arguments carries the bad text at Arg.
type Case struct {
	Tool      string
	Arg       string // as the refusal names it: a, a.b, a[0]
	Bad       Bad
	Arguments string // the raw JSON object
}

func (c Case) String() string { return fmt.Sprintf("%s %s %s", c.Tool, c.Arg, c.Bad.Name) }

type schema struct {
	Type       any                `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Items      *schema            `json:"items"`
	AnyOf      []*schema          `json:"anyOf"`
}

func (s *schema) takesString() bool {
	switch t := s.Type.(type) {
	case string:
		if t == "string" {
			return true
		}
	case []any:
		for _, e := range t {
			if e == "string" {
				return true
			}
		}
	}
	for _, a := range s.AnyOf {
		if a.takesString() {
			return true
		}
	}
	return false
}

// Cases lists the calls for every tool, in a stable order. It fails when
// a tool's input schema cannot be read.
func Cases(tools []*sdk.Tool) ([]Case, error) {
	var out []Case
	for _, tl := range tools {
		b, err := json.Marshal(tl.InputSchema)
		if err != nil {
			return nil, err
		}
		var s schema
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: input schema: %w", tl.Name, err)
		}
		for _, bad := range Bads {
			for _, p := range placements(&s, bad.JSON) {
				out = append(out, Case{Tool: tl.Name, Arg: p.arg, Bad: bad, Arguments: p.json})
			}
		}
	}
	return out, nil
}

type placement struct{ arg, json string }

// placements puts lit at each string-taking spot of the object schema s:
// one member each, the enclosing objects built around it.
func placements(s *schema, lit string) []placement {
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []placement
	for _, k := range names {
		key, _ := json.Marshal(k)
		for _, v := range values(s.Properties[k], lit) {
			out = append(out, placement{k + v.arg, "{" + string(key) + ":" + v.json + "}"})
		}
	}
	return out
}

// values are the ways to carry lit in a value of schema s, with the path
// below the member each takes.
func values(s *schema, lit string) []placement {
	var out []placement
	if s.takesString() {
		out = append(out, placement{"", lit})
	}
	for _, alt := range append([]*schema{s}, s.AnyOf...) {
		if alt.Items != nil && alt.Items.takesString() {
			out = append(out, placement{"[0]", "[" + lit + "]"})
			break
		}
	}
	if len(s.Properties) > 0 {
		for _, p := range placements(s, lit) {
			out = append(out, placement{"." + p.arg, p.json})
		}
	}
	return out
}

// Check says what is wrong with the answer to c: its text must be a
// refusal (isError) naming the argument and saying which rule it broke.
func Check(c Case, isError bool, text string) error {
	switch {
	case !isError:
		return fmt.Errorf("%s: answered, not refused: %.300s", c, text)
	case !strings.Contains(text, c.Arg):
		return fmt.Errorf("%s: the refusal does not name %s: %.300s", c, c.Arg, text)
	case !strings.Contains(text, c.Bad.Word):
		return fmt.Errorf("%s: the refusal does not say %s: %.300s", c, c.Bad.Word, text)
	}
	return nil
}
