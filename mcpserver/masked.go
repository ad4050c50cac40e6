package mcpserver

import "encoding/json"

// Masked is a tool answer encoded by EncodeResult and already passed
// through the server's Options.MaskJSON with the secrets known now: the
// server sends it without masking it again. Only a tool that masks with
// the very masker the server was given may return one — daemon/tools'
// answer memo, which masks each answer once when it keeps it and again
// whenever the masker's values change, so that a hundred memo hits cost
// no hundred masking passes. Every other answer is masked on its way out.
type Masked []byte

// masked is a result callTool hands handleOne already masked.
type masked json.RawMessage
