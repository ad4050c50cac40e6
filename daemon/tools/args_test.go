package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/opkit"
)

// testInput covers every argument type, with a nested object.
type testInput struct {
	Tasks    ops.Tasks    `json:"tasks" jsonschema:"task names"`
	Query    string       `json:"query,omitempty" jsonschema:"words"`
	TaskID   opkit.TaskID `json:"taskId,omitempty" jsonschema:"project#task"`
	RunID    *opkit.RunID `json:"runId,omitempty" jsonschema:"a run"`
	Force    bool         `json:"force,omitempty" jsonschema:"ignore the cache"`
	Limit    *opkit.Limit `json:"limit,omitempty" jsonschema:"how many"`
	Filter   ops.Filter   `json:"filter,omitempty" jsonschema:"projects"`
	Format   testFormat   `json:"format,omitempty" jsonschema:"output"`
	Scope    *testScope   `json:"scope,omitempty" jsonschema:"where"`
	Affected ops.Affected `json:"affected,omitzero" jsonschema:"changed projects"`
}

type testScope struct {
	Project string `json:"project" jsonschema:"a project"`
	Task    string `json:"task,omitempty" jsonschema:"a task"`
}

// testFormat is an enum argument.
type testFormat string

func (testFormat) Values() []string                 { return []string{"text", "json"} }
func (f testFormat) JSONSchema() *jsonschema.Schema { return opkit.EnumSchema(f.Values()) }

var _, _, testSchemaErr = opkit.InputSchema(reflect.TypeFor[testInput]())

// check is what a tool does with a call's arguments before answering:
// decode them against the input's schema (opkit.Decode), then check the
// filled input as a verb's is checked (opkit.Check, which Call runs).
func check(raw json.RawMessage) (*testInput, error) {
	if testSchemaErr != nil {
		return nil, testSchemaErr
	}
	var in testInput
	if err := opkit.Decode(raw, &in); err != nil {
		return nil, err
	}
	if err := opkit.Check(&in); err != nil {
		return nil, err
	}
	return &in, nil
}

type checkCase struct {
	name string
	raw  string
	want []string // substrings of the refusal; nil = accepted
}

var checkCases = []checkCase{
	{name: "minimal", raw: `{"tasks": ["build"]}`},
	{name: "everything", raw: `{"tasks": ["build", "test"], "query": "x", "taskId": "@scope/web#build", "runId": "01H", "force": true, "limit": 10,
		"filter": ["web", "tag:ui"], "format": "json", "scope": {"project": "web", "task": "build"}, "affected": "origin/main"}`},
	{name: "filter as a string", raw: `{"tasks": ["build"], "filter": "./apps/*"}`},
	{name: "affected true", raw: `{"tasks": ["build"], "affected": true}`},
	{name: "affected false", raw: `{"tasks": ["build"], "affected": false}`},
	{name: "limit fraction", raw: `{"tasks": ["build"], "limit": 2.5}`},
	{name: "limit negative", raw: `{"tasks": ["build"], "limit": -3}`},
	{name: "limit huge but finite", raw: `{"tasks": ["build"], "limit": 1e300}`},
	{name: "task id with two #", raw: `{"tasks": ["build"], "taskId": "a#b#c"}`},

	{name: "not an object", raw: `["build"]`, want: []string{"JSON object"}},
	{name: "null", raw: `null`, want: []string{"JSON object"}},
	{name: "empty input", raw: ``, want: []string{"JSON object"}},
	{name: "unknown key with did-you-mean", raw: `{"tasks": ["build"], "limt": 3}`, want: []string{`"limt"`, "did you mean limit", "this tool takes"}},
	{name: "unknown key, nothing close", raw: `{"tasks": ["build"], "zzzzzzzzzz": 3}`, want: []string{`"zzzzzzzzzz"`, "tasks"}},
	{name: "missing required", raw: `{"query": "x"}`, want: []string{`"tasks"`, "missing"}},
	{name: "string instead of array", raw: `{"tasks": "build"}`, want: []string{`"tasks"`, "array", "a string"}},
	{name: "empty array element", raw: `{"tasks": ["build", ""]}`, want: []string{"tasks[1]", "empty"}},
	{name: "whitespace array element", raw: `{"tasks": ["  "]}`, want: []string{"tasks[0]", "blanks only"}},
	{name: "number array element", raw: `{"tasks": [1]}`, want: []string{"tasks[0]", "a number"}},
	{name: "empty string", raw: `{"tasks": ["build"], "query": ""}`, want: []string{`"query"`, "empty"}},
	{name: "whitespace string", raw: `{"tasks": ["build"], "query": " \t\n"}`, want: []string{`"query"`, "blanks only"}},
	{name: "number for a string", raw: `{"tasks": ["build"], "query": 5}`, want: []string{`"query"`, "a number"}},
	{name: "empty run id", raw: `{"tasks": ["build"], "runId": ""}`, want: []string{`"runId"`}},
	{name: "half task id #build", raw: `{"tasks": ["build"], "taskId": "#build"}`, want: []string{`"taskId"`, `"#build"`, "half"}},
	{name: "half task id app#", raw: `{"tasks": ["build"], "taskId": "app#"}`, want: []string{`"taskId"`, `"app#"`, "half"}},
	{name: "task id without #", raw: `{"tasks": ["build"], "taskId": "build"}`, want: []string{`"taskId"`, "half"}},
	{name: "task id with a blank project", raw: `{"tasks": ["build"], "taskId": "  #build"}`, want: []string{`"taskId"`}},
	{name: "task id with a blank task", raw: `{"tasks": ["build"], "taskId": "web#  "}`, want: []string{`"taskId"`}},
	{name: "empty task id", raw: `{"tasks": ["build"], "taskId": ""}`, want: []string{`"taskId"`, "empty"}},
	{name: "bool as a string", raw: `{"tasks": ["build"], "force": "true"}`, want: []string{`"force"`, "true or false", "a string"}},
	{name: "bool as a number", raw: `{"tasks": ["build"], "force": 1}`, want: []string{`"force"`, "a number"}},
	{name: "limit 1e400 is not finite", raw: `{"tasks": ["build"], "limit": 1e400}`, want: []string{`"limit"`, "finite", "1e400"}},
	{name: "limit -1e400 is not finite", raw: `{"tasks": ["build"], "limit": -1e400}`, want: []string{`"limit"`, "finite"}},
	{name: "bool as a number no float64 holds", raw: `{"tasks": ["build"], "force": 1e400}`, want: []string{`"force"`, "true or false", "a number"}},
	{name: "limit as a string", raw: `{"tasks": ["build"], "limit": "10"}`, want: []string{`"limit"`, "a string"}},
	{name: "limit null", raw: `{"tasks": ["build"], "limit": null}`, want: []string{`"limit"`, "null"}},
	{name: "limit array", raw: `{"tasks": ["build"], "limit": [10]}`, want: []string{`"limit"`, "an array"}},
	{name: "enum outside", raw: `{"tasks": ["build"], "format": "yaml"}`, want: []string{`"format"`, `"yaml"`, `"text"`, `"json"`}},
	{name: "enum wrong case", raw: `{"tasks": ["build"], "format": "JSON"}`, want: []string{`"format"`, `"JSON"`}},
	{name: "enum number", raw: `{"tasks": ["build"], "format": 1}`, want: []string{`"format"`, "a number"}},
	{name: "empty filter array", raw: `{"tasks": ["build"], "filter": []}`, want: []string{`"filter"`, "empty array", "omit filter"}},
	{name: "nested unknown key", raw: `{"tasks": ["build"], "scope": {"project": "web", "x": 1}}`, want: []string{`"scope.x"`}},
	{name: "nested did-you-mean", raw: `{"tasks": ["build"], "scope": {"projet": "web"}}`, want: []string{`"scope.projet"`, "did you mean project"}},
	{name: "nested missing required", raw: `{"tasks": ["build"], "scope": {"task": "build"}}`, want: []string{`"scope.project"`, "missing"}},
	{name: "nested wrong type", raw: `{"tasks": ["build"], "scope": {"project": 3}}`, want: []string{`"scope.project"`, "a number"}},
	{name: "object as an array", raw: `{"tasks": ["build"], "scope": []}`, want: []string{`"scope"`, "an object", "an array"}},
	{name: "filter empty string", raw: `{"tasks": ["build"], "filter": ""}`, want: []string{`"filter"`, "empty"}},
	{name: "filter number", raw: `{"tasks": ["build"], "filter": 3}`, want: []string{`"filter"`, "a number"}},
	{name: "filter object", raw: `{"tasks": ["build"], "filter": {"name": "web"}}`, want: []string{`"filter"`, "an object"}},
	{name: "filter array with empty", raw: `{"tasks": ["build"], "filter": ["web", ""]}`, want: []string{"filter[1]", "empty"}},
	{name: "filter array with a bool", raw: `{"tasks": ["build"], "filter": [true]}`, want: []string{"filter[0]", "a boolean"}},
	{name: "affected number", raw: `{"tasks": ["build"], "affected": 1}`, want: []string{`"affected"`, "git ref", "a number"}},
	{name: "affected empty ref", raw: `{"tasks": ["build"], "affected": ""}`, want: []string{`"affected"`, "empty"}},
	{name: "affected null", raw: `{"tasks": ["build"], "affected": null}`, want: []string{`"affected"`, "null"}},
}

func TestCheck(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := check(json.RawMessage(tc.raw))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if v == nil {
					t.Fatal("nil input")
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted %s, want a refusal", tc.raw)
			}
			var r *opkit.Refusal
			if !errors.As(err, &r) {
				t.Errorf("error is %T, want *opkit.Refusal", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("refusal spans lines: %q", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestCheckValues(t *testing.T) {
	v, err := check(json.RawMessage(`{"tasks": ["build", "test"], "query": "q", "force": true, "limit": 2.6,
		"filter": "web", "scope": {"project": "web"}, "affected": "main"}`))
	if err != nil {
		t.Fatal(err)
	}
	limitOf := func(l *opkit.Limit) int {
		if l == nil {
			return 0
		}
		return int(*l)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"Strings of an array", strings.Join(v.Tasks, ","), "build,test"},
		{"Strings of a string", strings.Join(v.Filter, ","), "web"},
		{"Str", v.Query, "q"},
		{"Bool", v.Force, true},
		{"Limit rounds", limitOf(v.Limit), 3},
		{"Has present", v.Scope != nil, true},
		{"Has absent", v.RunID == nil, true},
		{"Object", v.Scope.Project, "web"},
		{"missing Str", string(v.TaskID), ""},
		{"missing Limit", limitOf(nil), 0},
		{"affected ref kept as a string", v.Affected.Ref, "main"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		raw  string
		want int
	}{{"0.2", 0}, {"0.6", 1}, {"-0.6", -1}, {"0", 0}, {"1e300", 1e9}, {"-1e300", -1e9}, {"7", 7}} {
		v, err := check(json.RawMessage(`{"tasks": ["b"], "limit": ` + tc.raw + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := limitOf(v.Limit); got != tc.want {
			t.Errorf("Limit(%s) = %d, want %d", tc.raw, got, tc.want)
		}
	}
}

func resolveSchema(t *testing.T, raw []byte) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema is not a JSON Schema: %v\n%s", err, raw)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema does not resolve: %v\n%s", err, raw)
	}
	return rs
}

// argOf is an input struct with one optional argument "a" of type typ and
// a required boolean "req".
func argOf(typ reflect.Type) reflect.Type {
	return reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: typ, Tag: `json:"a,omitempty" jsonschema:"described"`},
		{Name: "Req", Type: reflect.TypeFor[bool](), Tag: `json:"req"`},
	})
}

func TestSchemaPerKind(t *testing.T) {
	tests := []struct {
		name      string
		typ       reflect.Type
		good, bad []string // JSON values of the argument
	}{
		{"string", reflect.TypeFor[string](), []string{`"x"`}, []string{`""`, `1`, `null`}},
		{"task id", reflect.TypeFor[opkit.TaskID](), []string{`"web#build"`, `"@s/web#build"`}, []string{`"#build"`, `"web#"`, `"build"`, `""`}},
		{"run id", reflect.TypeFor[*opkit.RunID](), []string{`"01H"`}, []string{`""`, `true`}},
		{"bool", reflect.TypeFor[bool](), []string{`true`, `false`}, []string{`"true"`, `0`}},
		{"limit", reflect.TypeFor[*opkit.Limit](), []string{`1`, `2.5`, `-1`}, []string{`"10"`, `null`, `[1]`}},
		{"strings", reflect.TypeFor[[]string](), []string{`[]`, `["x"]`}, []string{`"x"`, `[""]`, `[1]`}},
		{"filter", reflect.TypeFor[ops.Filter](), []string{`"x"`, `["x", "y"]`}, []string{`""`, `[""]`, `3`, `{}`, `[]`}},
		{"tasks", reflect.TypeFor[ops.Tasks](), []string{`[]`, `["build", "web#build"]`}, []string{`"build"`, `[""]`, `["--force"]`, `["build", "-x"]`}},
		{"enum", reflect.TypeFor[opkit.Bucket](), []string{`"hour"`, `"day"`}, []string{`"week"`, `1`}},
		{"object", reflect.TypeFor[*struct {
			B string `json:"b"`
		}](), []string{`{"b": "x"}`}, []string{`{}`, `{"b": "x", "c": 1}`, `[]`}},
		{"bool or ref", reflect.TypeFor[ops.Affected](), []string{`true`, `"main"`}, []string{`""`, `1`, `null`, `"--output=x"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, rs, err := opkit.InputSchema(argOf(tc.typ))
			if err != nil {
				t.Fatal(err)
			}
			var top map[string]any
			if err := json.Unmarshal(raw, &top); err != nil {
				t.Fatal(err)
			}
			if top["type"] != "object" || top["additionalProperties"] != false {
				t.Errorf("top schema = %s", raw)
			}
			if req, _ := top["required"].([]any); len(req) != 1 || req[0] != "req" {
				t.Errorf("required = %v, want [req]", top["required"])
			}
			if d := top["properties"].(map[string]any)["a"].(map[string]any)["description"]; d != "described" {
				t.Errorf("description = %v", d)
			}
			validate := func(val string) error {
				var inst any
				if err := json.Unmarshal([]byte(`{"req": true, "a": `+val+`}`), &inst); err != nil {
					t.Fatal(err)
				}
				return rs.Validate(inst)
			}
			for _, g := range tc.good {
				if err := validate(g); err != nil {
					t.Errorf("schema refuses %s: %v", g, err)
				}
			}
			for _, b := range tc.bad {
				if err := validate(b); err == nil {
					t.Errorf("schema accepts %s", b)
				}
			}
		})
	}
	raw, _, err := opkit.InputSchema(reflect.TypeFor[struct{}]())
	if got := string(raw); err != nil || !strings.Contains(got, `"properties":{}`) || strings.Contains(got, "required") {
		t.Errorf("schema of no arguments = %s, %v", got, err)
	}
}
