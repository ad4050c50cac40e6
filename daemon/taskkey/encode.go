package taskkey

import (
	"slices"
	"strings"

	"github.com/vzn/vx/protocol/wire"
)

// The encoding of Components, written directly: what encoding/json
// writes for them (maps with their keys sorted, strings escaped as it
// escapes them), byte for byte, without reflection. A fully cached run of
// 1,000 tasks encodes 1,000 component sets, which json.Marshal spent
// about 15 ms of CPU on. A test compares both.

// appendBeforeDeps appends c's encoding with Deps as null.
func (c *Components) appendBeforeDeps(b []byte) []byte {
	b = append(b, `{"runner":`...)
	b = wire.AppendJSONString(b, c.Runner)
	b = append(b, `,"global":`...)
	b = appendMap(b, c.Global)
	b = append(b, `,"definition":`...)
	b = appendMap(b, c.Definition)
	b = append(b, `,"env":`...)
	b = appendMap(b, c.Env)
	b = append(b, `,"files":`...)
	b = appendMap(b, c.Files)
	return append(b, `,"deps":null}`...)
}

// appendMap appends m as encoding/json does: null when nil, else its
// entries in the order of their sorted keys.
func appendMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendJSONString(b, k)
		b = append(b, ':')
		b = wire.AppendJSONString(b, m[k])
	}
	return append(b, '}')
}
