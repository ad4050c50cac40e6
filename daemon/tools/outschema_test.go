package tools

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
)

type osInner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type OSEmbedded struct {
	E string `json:"e"`
}

type OSEmbeddedPtr struct {
	P int `json:"p"`
}

type OSNamedEmbed struct {
	N bool `json:"n"`
}

type osSample struct {
	OSEmbedded
	*OSEmbeddedPtr
	OSNamedEmbed `json:"named"`
	Name         string              `json:"name"`
	Count        int                 `json:"count,omitempty"`
	U            uint16              `json:"u"`
	Ratio        float64             `json:"ratio"`
	OK           bool                `json:"ok"`
	When         time.Time           `json:"when"`
	WhenPtr      *time.Time          `json:"whenPtr"`
	IntPtr       *int                `json:"intPtr"`
	StrPtr       *string             `json:"strPtr,omitempty"`
	List         []string            `json:"list"`
	Objs         []osInner           `json:"objs"`
	PtrList      []*osInner          `json:"ptrList"`
	M            map[string]int      `json:"m"`
	MP           map[string]*osInner `json:"mp"`
	Inner        osInner             `json:"inner"`
	InnerPtr     *osInner            `json:"innerPtr"`
	Nested       [][]int             `json:"nested"`
	Dur          time.Duration       `json:"dur"`
	Any          any                 `json:"any"`
	NoTag        string
	Hidden       string    `json:"-"`
	Self         *osSample `json:"self,omitempty"`
	unexported   int
}

func filledSample() *osSample {
	n := 4
	s := "s"
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	return &osSample{
		OSEmbedded: OSEmbedded{E: "e"}, OSEmbeddedPtr: &OSEmbeddedPtr{P: 1}, OSNamedEmbed: OSNamedEmbed{N: true},
		Name: "x", Count: 3, U: 7, Ratio: 0.5, OK: true, When: now, WhenPtr: &now, IntPtr: &n, StrPtr: &s,
		List: []string{"a"}, Objs: []osInner{{A: 1, B: "b"}}, PtrList: []*osInner{{A: 2}, nil},
		M: map[string]int{"k": 1}, MP: map[string]*osInner{"k": {A: 3}, "nil": nil},
		Inner: osInner{A: 5}, InnerPtr: &osInner{A: 6}, Nested: [][]int{{1, 2}, nil}, Dur: time.Second,
		Any: map[string]any{"free": []any{1, "x"}}, NoTag: "t", Hidden: "h",
		Self: &osSample{Name: "child"}, unexported: 1,
	}
}

func TestOutputSchemaShape(t *testing.T) {
	var top map[string]any
	if err := json.Unmarshal(opkit.OutputSchema(&osSample{}), &top); err != nil {
		t.Fatal(err)
	}
	if top["type"] != "object" {
		t.Fatalf("top type = %v", top["type"])
	}
	props := top["properties"].(map[string]any)
	typeOf := func(name string) any {
		p, ok := props[name].(map[string]any)
		if !ok {
			return nil
		}
		return p["type"]
	}
	nullable := func(ty string) []any { return []any{ty, "null"} }
	tests := []struct {
		prop string
		want any // nil: absent
	}{
		{"e", "string"},     // embedded struct flattened
		{"p", "integer"},    // embedded pointer flattened
		{"named", "object"}, // embedded with a json name is a field
		{"name", "string"},
		{"count", "integer"},
		{"u", "integer"},
		{"ratio", "number"},
		{"ok", "boolean"},
		{"when", "string"},
		{"whenPtr", nullable("string")},
		{"intPtr", nullable("integer")},
		{"strPtr", nullable("string")},
		{"list", nullable("array")},
		{"objs", nullable("array")},
		{"m", nullable("object")},
		{"inner", "object"},
		{"innerPtr", nullable("object")},
		{"dur", "integer"},
		{"NoTag", "string"},
		{"Hidden", nil},
		{"-", nil},
		{"unexported", nil},
		{"OSEmbedded", nil},
	}
	for _, tc := range tests {
		t.Run(tc.prop, func(t *testing.T) {
			got := typeOf(tc.prop)
			if tc.want == nil {
				if _, ok := props[tc.prop]; ok {
					t.Errorf("property %q present: %v", tc.prop, props[tc.prop])
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("type of %q = %v, want %v", tc.prop, got, tc.want)
			}
		})
	}
	items := props["ptrList"].(map[string]any)["items"].(map[string]any)
	if !reflect.DeepEqual(items["type"], []any{"object", "null"}) {
		t.Errorf("ptrList items type = %v, want [object null]", items["type"])
	}
	if _, ok := top["required"]; ok {
		t.Error("fields are marked required, but omitempty ones may be absent")
	}
}

func TestOutputSchemaValidatesMarshalledValues(t *testing.T) {
	type withTime struct {
		At  time.Time  `json:"at"`
		Opt *time.Time `json:"opt,omitempty"`
	}
	type plainList struct {
		Items []osInner `json:"items"`
	}
	tests := []struct {
		name   string
		typ    any   // passed to outputSchema
		values []any // marshalled and validated
	}{
		{"struct with every shape, zero and filled", &osSample{}, []any{&osSample{}, filledSample()}},
		{"time values", withTime{}, []any{withTime{}, withTime{At: time.Now(), Opt: new(time.Time)}}},
		{"nil and empty slices", &plainList{}, []any{plainList{}, plainList{Items: []osInner{}}}},
		{"lock check result (a real tool output)", &lockfile.CheckResult{}, []any{&lockfile.CheckResult{},
			&lockfile.CheckResult{Problems: []lockfile.Problem{{TaskID: "a#b", Field: "command"}}, Audited: []string{"x"}}}},
		{"an outer field shadows an embedded one", &osShadow{}, []any{osShadow{Name: 3, OSShadowed: OSShadowed{Name: "inner"}}}},
		{"[]byte marshals as a base64 string", &osBytes{}, []any{osBytes{Data: []byte("hi")}, osBytes{}}},
		{"a json.Marshaler field (workspace.MCPRun) marshals as its own JSON", &osMarshaler{}, []any{osMarshaler{Run: workspace.MCPRun{Set: true, Tasks: []string{"test"}}}, osMarshaler{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := opkit.OutputSchema(tc.typ)
			rs := resolveSchema(t, raw)
			for _, v := range tc.values {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				var inst any
				if err := json.Unmarshal(b, &inst); err != nil {
					t.Fatal(err)
				}
				if err := rs.Validate(inst); err != nil {
					t.Errorf("marshalled value does not validate: %v\nvalue:  %s\nschema: %s", err, b, raw)
				}
			}
		})
	}
}

type OSShadowed struct {
	Name string `json:"name"`
}

type osShadow struct {
	Name int `json:"name"`
	OSShadowed
}

type osBytes struct {
	Data []byte `json:"data"`
}

type osMarshaler struct {
	Run workspace.MCPRun `json:"run"`
}

func TestOutputSchemaRecursive(t *testing.T) {
	type node struct {
		Name     string  `json:"name"`
		Children []*node `json:"children"`
	}
	raw := opkit.OutputSchema(&node{})
	rs := resolveSchema(t, raw)
	b, _ := json.Marshal(node{Name: "a", Children: []*node{{Name: "b", Children: []*node{{Name: "c"}}}}})
	var inst any
	_ = json.Unmarshal(b, &inst)
	if err := rs.Validate(inst); err != nil {
		t.Errorf("recursive value does not validate: %v\n%s", err, raw)
	}
}

// fill sets every exported field reachable from v to a non-zero value:
// pointers allocated, slices and maps given one element, down to depth.
func fill(v reflect.Value, depth int) {
	if depth > 6 || !v.CanSet() {
		return
	}
	if v.Type() == reflect.TypeOf(time.Time{}) {
		v.Set(reflect.ValueOf(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	}
}

// TestOutputSchemaOfToolOutputs validates a zero and a filled value of
// every output type the catalog advertises against its outputSchema.
func TestOutputSchemaOfToolOutputs(t *testing.T) {
	outputs := []any{
		&ops.ShowOutput{}, &ops.CacheStatsOutput{}, &ops.RunHistoryOutput{}, &ops.ExplainOutput{}, &ops.WhyOutput{},
		&cache.PruneResult{}, &ops.TaskLogOutput{}, &ops.FailuresOutput{}, &ops.CompareOutput{}, &ops.TrendsOutput{},
		&ops.PlanTasksOutput{}, &ops.RunTasksOutput{}, &ops.InfoOutput{}, &ops.RunOutput{}, &ops.RunsOutput{},
		&lockfile.CheckResult{}, &docsearch.Result{}, &migrate.Plan{},
	}
	for _, out := range outputs {
		typ := reflect.TypeOf(out).Elem()
		t.Run(typ.String(), func(t *testing.T) {
			raw := opkit.OutputSchema(out)
			rs := resolveSchema(t, raw)
			filled := reflect.New(typ)
			fill(filled.Elem(), 0)
			for name, v := range map[string]any{"zero": reflect.New(typ).Interface(), "filled": filled.Interface()} {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var inst any
				if err := json.Unmarshal(b, &inst); err != nil {
					t.Fatal(err)
				}
				if _, ok := inst.(map[string]any); !ok {
					t.Errorf("%s value is not a JSON object: %s", name, b)
				}
				if err := rs.Validate(inst); err != nil {
					t.Errorf("%s value does not validate: %v\nvalue:  %s\nschema: %s", name, err, b, raw)
				}
			}
		})
	}
}
