package jsonc

import "bytes"

// Blank turns JSON with comments and trailing commas into plain JSON of
// the same length without parsing it, so a document broken part-way can
// still be read up to the break (Parse refuses it whole). Only the lenient
// readers that must see every declared secret use it.
func Blank(src []byte) []byte {
	out := bytes.Clone(src)
	const (
		code = iota
		str
		line
		block
	)
	state := code
	last := -1 // index of the last significant code byte
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch state {
		case str:
			if c == '\\' {
				i++
			} else if c == '"' {
				state, last = code, i
			}
		case line:
			if c == '\n' {
				state = code
			} else {
				out[i] = ' '
			}
		case block:
			if c == '*' && i+1 < len(out) && out[i+1] == '/' {
				out[i], out[i+1] = ' ', ' '
				i++
				state = code
			} else if c != '\n' {
				out[i] = ' '
			}
		default:
			state, last = blankCode(out, i, state, last)
			if state == line || state == block {
				i++
			}
		}
	}
	return out
}

// blankCode handles one byte outside strings and comments.
func blankCode(out []byte, i, state, last int) (int, int) {
	const (
		code = iota
		str
		line
		block
	)
	c := out[i]
	switch {
	case c == '"':
		return str, last
	case c == '/' && i+1 < len(out) && (out[i+1] == '/' || out[i+1] == '*'):
		next := line
		if out[i+1] == '*' {
			next = block
		}
		out[i], out[i+1] = ' ', ' '
		return next, last
	case c == '}' || c == ']':
		if last >= 0 && out[last] == ',' {
			out[last] = ' '
		}
		return code, i
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		return state, last
	}
	return state, i
}
