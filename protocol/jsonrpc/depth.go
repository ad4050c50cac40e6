package jsonrpc

import "bytes"

// maxDepth is how deeply a body may nest arrays and objects. A deeper
// body is valid JSON that vx will not parse: it is refused with -32600
// saying so, before any parser recurses into it.
const maxDepth = 512

// tooDeep reports whether data nests arrays and objects deeper than
// maxDepth, reading it once without recursion.
func tooDeep(data []byte) bool {
	// A body with no more than maxDepth opening brackets in all (in
	// strings or not) cannot nest deeper than that: the usual request,
	// told without walking it byte by byte.
	if len(data) <= maxDepth || bytes.Count(data, []byte{'{'})+bytes.Count(data, []byte{'['}) <= maxDepth {
		return false
	}
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

func errTooDeep() *Error {
	return Errorf(CodeInvalidRequest, "invalid request: the body nests arrays and objects more than %d levels deep, the most vx accepts; send a flatter message", maxDepth)
}
