package mcpserver

import (
	"encoding/json"
	"strings"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// callParams are the members of a tools/call's params vx reads.
type callParams struct {
	Name      json.RawMessage  `json:"name"`
	Arguments json.RawMessage  `json:"arguments"`
	Meta      *mcp.RequestMeta `json:"_meta"`
}

// readCallParams decodes a tools/call's params as json.Unmarshal into
// callParams does. The usual params ({"name":…,"arguments":…}, names in
// plain ASCII, no _meta) are read in one pass; any other (a _meta, a name
// that only matches without regard to case, an escape or a non-ASCII
// byte in a name) take the decoder.
func readCallParams(params json.RawMessage) (callParams, error) {
	var p callParams
	plain := jsonrpc.ScanObject(params, func(name []byte, v json.RawMessage) bool {
		switch string(name) {
		case "name":
			p.Name = v
		case "arguments":
			p.Arguments = v
		default:
			for _, c := range name {
				if c >= 0x80 {
					return false
				}
			}
			n := string(name)
			return !strings.EqualFold(n, "name") && !strings.EqualFold(n, "arguments") && !strings.EqualFold(n, "_meta")
		}
		return true
	})
	if plain {
		return p, nil
	}
	p = callParams{}
	err := json.Unmarshal(params, &p)
	return p, err
}
