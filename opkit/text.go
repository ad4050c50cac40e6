package opkit

import (
	"encoding/json"

	"github.com/vzn/vx/protocol/jsonrpc"
)

// Every string an agent gives reaches something that cannot hold it
// whole: PostgreSQL refuses NUL and invalid UTF-8 (SQLSTATE 22021),
// encoding/json replaces invalid bytes with U+FFFD, a file name ends at
// NUL. So the one place arguments are decoded refuses both, naming the
// argument, before any rule of the argument's own type runs.

// CheckText refuses s when it holds a NUL character or is not valid
// UTF-8, with a refusal naming the argument name.
func CheckText(name, s string) error {
	if nul, bad := jsonrpc.StringFault(s); bad {
		return textRefusal(name, nul)
	}
	return nil
}

// CheckArgsText refuses raw, a JSON object of arguments, when one of its
// strings (at any depth) holds a NUL or is not valid UTF-8, naming the
// argument: these are lost or replaced once decoded, so the raw text is
// read (jsonrpc.CheckText). DecodeInput runs it; a route decoding a JSON
// body of its own runs it first.
func CheckArgsText(raw json.RawMessage) error {
	if f := jsonrpc.CheckText(raw); f != nil && f.Path != "" {
		return textRefusal(f.Path, f.NUL)
	}
	return nil
}

func textRefusal(name string, nul bool) error {
	if nul {
		return Refuse(name, "must be text without NUL characters, and it holds one (\\u0000)")
	}
	return Refuse(name, "must be valid UTF-8 text, and it holds a byte sequence (or an unpaired surrogate escape) that is not")
}
