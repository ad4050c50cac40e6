package proof

import (
	"strings"
	"testing"
)

// Each MAC changes with every field it covers, and a request's MAC is
// never an answer's over the same fields.
func TestMACsCoverEveryField(t *testing.T) {
	n1, _ := NewNonce()
	n2, _ := NewNonce()
	if !ValidNonce(n1) || n1 == n2 || ValidNonce(strings.ToUpper(n1)) || ValidNonce(n1[1:]) {
		t.Fatalf("nonces %q %q", n1, n2)
	}
	base := Answer("tok", 1, n1, "GET", "/changes", 200, []byte("{}"))
	if !ValidMAC(base) || !Equal(base, Answer("tok", 1, n1, "GET", "/changes", 200, []byte("{}"))) {
		t.Fatalf("answer MAC %q is not stable", base)
	}
	others := map[string]string{
		"token":   Answer("tok2", 1, n1, "GET", "/changes", 200, []byte("{}")),
		"port":    Answer("tok", 2, n1, "GET", "/changes", 200, []byte("{}")),
		"nonce":   Answer("tok", 1, n2, "GET", "/changes", 200, []byte("{}")),
		"method":  Answer("tok", 1, n1, "POST", "/changes", 200, []byte("{}")),
		"uri":     Answer("tok", 1, n1, "GET", "/status", 200, []byte("{}")),
		"status":  Answer("tok", 1, n1, "GET", "/changes", 500, []byte("{}")),
		"body":    Answer("tok", 1, n1, "GET", "/changes", 200, []byte("{} ")),
		"request": Request("tok", 1, n1, "GET", "/changes"),
	}
	for what, m := range others {
		if Equal(m, base) {
			t.Errorf("another %s gives the same MAC", what)
		}
	}
	if Equal(Request("tok", 1, n1, "GET", "/a"), Request("tok", 1, n1, "GET", "/b")) || Equal(Request("tok", 12, n1, "GET", "/a"), Request("tok", 1, n1, "GET", "/a")) {
		t.Error("a request MAC does not cover the uri or the port")
	}
}

// BenchmarkQuestion is the CPU the proof adds to one question: a nonce,
// the client's MAC, the daemon's proof of a 1 KiB answer and the client's
// check of it.
func BenchmarkQuestion(b *testing.B) {
	body := []byte(strings.Repeat("x", 1024))
	tok := strings.Repeat("ab", 32)
	for i := 0; i < b.N; i++ {
		n, _ := NewNonce()
		_ = Request(tok, 40117, n, "GET", "/changes?epoch=0123456789abcdef01234567&seq=42")
		p := Answer(tok, 40117, n, "GET", "/changes?epoch=0123456789abcdef01234567&seq=42", 200, body)
		if !Equal(p, Answer(tok, 40117, n, "GET", "/changes?epoch=0123456789abcdef01234567&seq=42", 200, body)) {
			b.Fatal("unequal")
		}
	}
}
