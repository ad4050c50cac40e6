package mcp

import (
	"encoding/json"
	"testing"
)

// HasModernMeta's shortcut (cannotHoldMeta) must never hide a _meta the
// decoder would find, however the name is spelt.
func TestHasModernMetaSpellings(t *testing.T) {
	k, _ := json.Marshal(MetaProtocolVersion)
	meta := `{` + string(k) + `:"2026-07-28"}`
	for params, want := range map[string]bool{
		`{"_meta":` + meta + `}`:                                  true,
		`{"_META":` + meta + `}`:                                  true,
		`{"\u005fmeta":` + meta + `}`:                             true,
		`{"_m\u0065ta":` + meta + `}`:                             true,
		`{"name":"x","arguments":{"a":1},"_Meta":` + meta + `}`:   true,
		`{"name":"listTasks","arguments":{"project":"pkg-0500"}}`: false,
		`{"name":"é","_meta":{}}`:                                 false,
		`{"_meta":{"other":1}}`:                                   false,
		`{"meta":` + meta + `}`:                                   false,
	} {
		if got := HasModernMeta(json.RawMessage(params)); got != want {
			t.Errorf("HasModernMeta(%s) = %v, want %v", params, got, want)
		}
	}
}
