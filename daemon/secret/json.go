package secret

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSON masks a JSON (or JSON-with-comments) text on its decoded values:
// every string literal is decoded, masked and, when it held a secret,
// written back as a plain JSON string, so a secret spelt with escapes
// ("pa\"ss", "t\u006fp", a PEM key with \n) is masked as surely as one
// spelt plainly. Text outside string literals (numbers, comments) is
// masked as it stands. A literal that does not decode (a truncated or
// broken document) is masked as raw text.
func (m *Masker) JSON(b []byte) []byte {
	if m.Empty() {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b))
	plain := 0 // start of the text not yet written
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '/' && i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '*'):
			i = commentEnd(b, i) - 1 // a quote in a comment opens no string
		case b[i] == '"':
			end, escaped := stringEnd(b, i)
			out.Write(b[plain:i])
			out.Write(m.literal(b[i:end], escaped))
			plain, i = end, end-1
		}
	}
	out.Write(b[plain:])
	// Then the whole text as it stands: a value spelt across a literal's
	// quotes, or in a comment.
	return m.Bytes(out.Bytes())
}

// commentEnd finds the end (exclusive) of the comment opening at b[start].
func commentEnd(b []byte, start int) int {
	if b[start+1] == '/' {
		if j := bytes.IndexByte(b[start:], '\n'); j >= 0 {
			return start + j
		}
		return len(b)
	}
	if j := bytes.Index(b[start+2:], []byte("*/")); j >= 0 {
		return start + 2 + j + 2
	}
	return len(b)
}

// stringEnd finds the end (exclusive) of the string literal opening at
// b[start], and whether it holds an escape. An unterminated literal ends
// with the text.
func stringEnd(b []byte, start int) (end int, escaped bool) {
	for j := start + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

// literal masks one string literal, quotes included.
func (m *Masker) literal(lit []byte, escaped bool) []byte {
	if !escaped {
		return lit // the final pass masks it as it stands
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return lit
	}
	masked := m.String(s)
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		// A JSON text inside a string (a tool's text content): its own
		// literals are masked on their decoded values too.
		masked = string(m.JSON([]byte(s)))
	}
	if masked == s {
		return lit
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(masked)
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// Longest is the length of the longest secret value, 0 without any.
func (m *Masker) Longest() int {
	if m == nil {
		return 0
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(m.values) == 0 {
		return 0
	}
	return len(m.values[0]) // sorted longest first
}

// Cut masks s and keeps at most n bytes of the result. Where text was cut
// (the result is shorter than the masked text, or cut says s itself was
// already cut from a longer text), a tail that could be the start of a
// secret is dropped too, so no part of a value survives a cut. It answers
// the kept text and how many bytes of the masked text were left out.
func (m *Masker) Cut(s string, n int, cut bool) (string, int) {
	masked := m.String(s)
	dropped := 0
	if len(masked) > n {
		dropped = len(masked) - n
		masked, cut = masked[:n], true
	}
	if cut {
		if k := m.partialTail(masked); k > 0 {
			masked, dropped = masked[:len(masked)-k], dropped+k
		}
	}
	return masked, dropped
}

// partialTail is the length of the longest tail of s that is a proper
// prefix of a secret value.
func (m *Masker) partialTail(s string) int {
	if m == nil {
		return 0
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	best := 0
	for _, v := range m.values {
		for k := min(len(v)-1, len(s)); k > best; k-- {
			if strings.HasSuffix(s, v[:k]) {
				best = k
				break
			}
		}
	}
	return best
}
