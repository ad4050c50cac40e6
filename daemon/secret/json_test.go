package secret_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/secret"
)

func TestMaskerJSON(t *testing.T) {
	pem := "-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----"
	m := secret.NewMasker(pem, `pa"ss/wo\rd`, "topsecretvalue", "plainpw")
	tests := []struct {
		name, in, want string
	}{
		{"pem with escaped newlines", `{"k": "-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----"}`, `{"k": "***"}`},
		{"escaped quote and backslash", `{"k": "pa\"ss/wo\\rd"}`, `{"k": "***"}`},
		{"unicode escape", `{"k": "t\u006fpsecretvalue", "n": 1}`, `{"k": "***", "n": 1}`},
		{"inside a longer literal", `["x t\u006fpsecretvalue y"]`, `["x *** y"]`},
		{"plain value", `{"k": "plainpw"}`, `{"k": "***"}`},
		{"comment with a quote before the value", "{ // don't \"quote\n \"k\": \"t\\u006fpsecretvalue\" }", "{ // don't \"quote\n \"k\": \"***\" }"},
		{"value in a comment", "{ /* plainpw */ }", "{ /* *** */ }"},
		{"escaped literal without a secret is kept as written", `{"k": "a\u0062c"}`, `{"k": "a\u0062c"}`},
		{"JSON inside a string", `{"text": "{\"k\": \"pa\\\"ss/wo\\\\rd\"}"}`, `{"text": "{\"k\": \"***\"}"}`},
		{"unterminated literal", `{"k": "plainpw`, `{"k": "***`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(m.JSON([]byte(tc.in))); got != tc.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
	// Whatever Go's encoder makes of a value, the masked text holds none
	// of it once decoded.
	for _, v := range []string{pem, `pa"ss/wo\rd`, "topsecretvalue<&>"} {
		b, _ := json.Marshal(map[string]string{"text": "before " + v + " after"})
		var back map[string]string
		if err := json.Unmarshal(secret.NewMasker(v).JSON(b), &back); err != nil {
			t.Fatalf("masked %s is not JSON: %v", b, err)
		}
		if back["text"] != "before *** after" {
			t.Errorf("decoded masked text = %q", back["text"])
		}
	}
	if got := string((*secret.Masker)(nil).JSON([]byte(`"x"`))); got != `"x"` {
		t.Errorf("nil masker changed the text: %s", got)
	}
}

func TestMaskerCut(t *testing.T) {
	m := secret.NewMasker("S3cretvalue")
	tests := []struct {
		name    string
		in      string
		n       int
		cut     bool
		want    string
		dropped int
	}{
		{"fits", "abc S3cretvalue", 100, false, "abc ***", 0},
		{"masked before the cut", strings.Repeat("x", 10) + "S3cretvalue", 14, false, strings.Repeat("x", 10) + "***", 0},
		{"cut in the mask", strings.Repeat("x", 10) + "S3cretvalue", 12, false, strings.Repeat("x", 10) + "**", 1},
		{"a partial value at a cut is dropped", strings.Repeat("x", 10) + "S3cret", 100, true, strings.Repeat("x", 10), 6},
		{"a partial value without a cut is output", "xS3cret", 100, false, "xS3cret", 0},
		{"cut lands in the value's start", "abc S3cr more", 8, false, "abc ", 4 + 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped := m.Cut(tc.in, tc.n, tc.cut)
			if got != tc.want || dropped != tc.dropped {
				t.Errorf("Cut(%q, %d, %v) = %q, %d; want %q, %d", tc.in, tc.n, tc.cut, got, dropped, tc.want, tc.dropped)
			}
		})
	}
	if got := secret.NewMasker("ab", "abcdef").Longest(); got != 6 {
		t.Errorf("Longest = %d, want 6", got)
	}
}

// BenchmarkMaskerJSON masks a 1 MiB tool answer (a task log as a JSON
// string with escapes, as getTaskLog answers it) holding one secret.
func BenchmarkMaskerJSON(b *testing.B) {
	m := secret.NewMasker("topsecretvalue", "-----BEGIN KEY-----\nabc\n-----END KEY-----")
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("app#build: compiling \"src/main.go\"\tok\n")
	}
	sb.WriteString("topsecretvalue\n")
	doc, _ := json.Marshal(map[string]any{"taskId": "app#build", "output": sb.String(), "truncated": false})
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	for b.Loop() {
		m.JSON(doc)
	}
}
