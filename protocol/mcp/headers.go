package mcp

// Header names of the streamable HTTP transport, which the daemon and the
// stdio shim both speak.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderLastEventID     = "Last-Event-ID"
)
