package mcp

import (
	"encoding/json"
	"testing"
)

// HasStatelessMeta's shortcut (cannotHoldMeta) must never hide a _meta the
// decoder would find, however the name is spelt.
func TestHasStatelessMetaSpellings(t *testing.T) {
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
		if got := HasStatelessMeta(json.RawMessage(params)); got != want {
			t.Errorf("HasStatelessMeta(%s) = %v, want %v", params, got, want)
		}
	}
}

// HasMeta finds a _meta member whatever it holds, however it is spelt,
// and only a member.
func TestHasMeta(t *testing.T) {
	for params, want := range map[string]bool{
		`{"_meta":{}}`:                     true,
		`{"_meta":5}`:                      true,
		`{"_meta":null}`:                   true,
		`{"_META":"x"}`:                    true,
		`{"\u005fmeta":[]}`:                true,
		`{}`:                               false,
		`{"name":"x","arguments":{"a":1}}`: false,
		`{"arguments":{"_meta":{}}}`:       false,
		`[1]`:                              false,
		``:                                 false,
	} {
		if got := HasMeta(json.RawMessage(params)); got != want {
			t.Errorf("HasMeta(%s) = %v, want %v", params, got, want)
		}
	}
}
