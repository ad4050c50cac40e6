package mcp

// Header names of the streamable HTTP transport, which the daemon and the
// stdio shim both speak.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderLastEventID     = "Last-Event-ID"
)

// Headers the stateless era adds: each POST mirrors its method, and for
// tools/call, resources/read and prompts/get the name or URI, so
// intermediaries can route without reading the body.
const (
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
)
