package mcp

// The request methods vx's MCP servers answer. This is the one list:
// the servers' dispatch, the transports' early "method not found" and
// the stateless era's checks all ask Answers rather than keep their own.
const (
	MethodInitialize          = "initialize"
	MethodPing                = "ping"
	MethodSetLevel            = "logging/setLevel"
	MethodSubscribe           = "resources/subscribe"
	MethodUnsubscribe         = "resources/unsubscribe"
	MethodDiscover            = "server/discover"
	MethodSubscriptionsListen = "subscriptions/listen"
	MethodToolsList           = "tools/list"
	MethodToolsCall           = "tools/call"
	MethodResourcesList       = "resources/list"
	MethodResourceTemplates   = "resources/templates/list"
	MethodResourcesRead       = "resources/read"
	MethodPromptsList         = "prompts/list"
	MethodPromptsGet          = "prompts/get"
	MethodComplete            = "completion/complete"
)

// MethodElicit asks the person behind the client for input: the one
// request the server sends (in the session era; in the stateless era it
// is an input request of an input_required result).
const MethodElicit = "elicitation/create"

// Era is the part of MCP a request belongs to: the session era (initialize
// first, revisions 2024-11-05 … 2025-11-25) or the stateless era (its
// revision in each request's _meta, 2026-07-28).
type Era uint8

// The eras.
const (
	SessionEra Era = 1 << iota
	StatelessEra
)

// Answers reports whether vx's servers answer method in era: ping,
// initialize, logging/setLevel and resources/(un)subscribe only in the
// session era; server/discover and subscriptions/listen only in the
// stateless era; the catalog methods in both.
func Answers(era Era, method string) bool {
	return methodEras(method)&era != 0
}

func methodEras(method string) Era {
	switch method {
	case MethodInitialize, MethodPing, MethodSetLevel, MethodSubscribe, MethodUnsubscribe:
		return SessionEra
	case MethodDiscover, MethodSubscriptionsListen:
		return StatelessEra
	case MethodToolsList, MethodToolsCall, MethodResourcesList, MethodResourceTemplates,
		MethodResourcesRead, MethodPromptsList, MethodPromptsGet, MethodComplete:
		return SessionEra | StatelessEra
	}
	return 0
}
