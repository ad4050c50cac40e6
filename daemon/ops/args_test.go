package ops

import (
	"encoding/json"
	"testing"
)

// TestUnionsRoundTrip: the union argument types read what they write, in
// the shapes an agent may send. What they refuse is their schema's
// (daemon/tools TestSchemaPerKind, TestCheck): decoding validates
// against it before encoding/json fills them.
func TestUnionsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want Affected
		out  string
	}{
		{`true`, Affected{On: true}, `true`},
		{`false`, Affected{}, `false`},
		{`"origin/main"`, Affected{On: true, Ref: "origin/main"}, `"origin/main"`},
	} {
		var a Affected
		if err := json.Unmarshal([]byte(tc.raw), &a); err != nil || a != tc.want {
			t.Errorf("affected %s: %+v, %v; want %+v", tc.raw, a, err, tc.want)
		}
		if b, _ := json.Marshal(a); string(b) != tc.out {
			t.Errorf("affected %+v marshals as %s, want %s", a, b, tc.out)
		}
	}
	var f Filter
	if err := json.Unmarshal([]byte(`"web"`), &f); err != nil || len(f) != 1 || f[0] != "web" {
		t.Errorf("filter \"web\": %v, %v", f, err)
	}
	if err := json.Unmarshal([]byte(`["web","tag:ui"]`), &f); err != nil || len(f) != 2 {
		t.Errorf("filter array: %v, %v", f, err)
	}
	if b, _ := json.Marshal(f); string(b) != `["web","tag:ui"]` {
		t.Errorf("filter marshals as %s", b)
	}
}
