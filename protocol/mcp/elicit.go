package mcp

import "encoding/json"

// MethodElicit asks the person behind the client for input: a request the
// server sends in the session era, an input request of an
// input_required result in 2026-07-28.
const MethodElicit = "elicitation/create"

// Elicitation actions.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitParams are the params of elicitation/create (form mode).
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// ElicitResult is the client's answer to elicitation/create.
type ElicitResult struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content,omitempty"`
}

// InputRequest is one entry of an input_required result's inputRequests.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}
