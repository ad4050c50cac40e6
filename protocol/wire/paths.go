package wire

// vxd's endpoints that its clients address (the others are
// proof.HelloPath, ChangesPath and ApprovePath). Each needs the
// discovery file's token.
const (
	// MCPPath is the streamable HTTP MCP endpoint (vx-platform serves
	// its team tools at the same path).
	MCPPath = "/mcp"
	// StatusPath answers GET with a Status.
	StatusPath = "/status"
	// ShutdownPath stops the daemon on POST (202).
	ShutdownPath = "/shutdown"
	// EventsPath is the live feed of Events, a websocket.
	EventsPath = "/events"
)
