package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/proof"
)

// TestGuardMACAuth: a request authorized by the MAC of its nonce
// (proof.Scheme) is let in when the MAC is the token's over this port,
// method and request URI, and refused (401) when any of them differs,
// the nonce is missing or malformed, the request has a body, or the MAC
// is the daemon's answer MAC reflected back.
func TestGuardMACAuth(t *testing.T) {
	const port, token = 4711, "the-bearer-token"
	h := Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }), GuardOptions{Port: port, Token: token})
	nonce, _ := proof.NewNonce()
	other, _ := proof.NewNonce()
	good := proof.Request(token, port, nonce, "GET", "/changes?epoch=ab&seq=1")
	tests := []struct {
		name, method, uri, nonce, mac, body string
		want                                int
	}{
		{"the right MAC", "GET", "/changes?epoch=ab&seq=1", nonce, good, "", 200},
		{"another query", "GET", "/changes?epoch=ab&seq=2", nonce, good, "", 401},
		{"another method", "POST", "/changes?epoch=ab&seq=1", nonce, good, "", 401},
		{"another nonce", "GET", "/changes?epoch=ab&seq=1", other, good, "", 401},
		{"no nonce", "GET", "/changes?epoch=ab&seq=1", "", good, "", 401},
		{"a nonce in capitals", "GET", "/changes?epoch=ab&seq=1", strings.ToUpper(nonce), proof.Request(token, port, strings.ToUpper(nonce), "GET", "/changes?epoch=ab&seq=1"), "", 401},
		{"another port", "GET", "/status", nonce, proof.Request(token, port+1, nonce, "GET", "/status"), "", 401},
		{"another token", "GET", "/status", nonce, proof.Request(token+"x", port, nonce, "GET", "/status"), "", 401},
		{"a truncated MAC", "GET", "/status", nonce, proof.Request(token, port, nonce, "GET", "/status")[:63], "", 401},
		{"the answer MAC", "GET", "/status", nonce, proof.Answer(token, port, nonce, "GET", "/status", 200, nil), "", 401},
		{"a body", "POST", "/mcp", nonce, proof.Request(token, port, nonce, "POST", "/mcp"), `{"jsonrpc":"2.0"}`, 401},
		{"the token as the MAC", "GET", "/status", nonce, token, "", 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body *strings.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req := httptest.NewRequest(tc.method, tc.uri, nil)
			if body != nil {
				req = httptest.NewRequest(tc.method, tc.uri, body)
			}
			req.Host = "127.0.0.1:" + strconv.Itoa(port)
			req.Header.Set("Authorization", proof.Scheme+" "+tc.mac)
			if tc.nonce != "" {
				req.Header.Set(proof.NonceHeader, tc.nonce)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("%s %s: %d, want %d (%s)", tc.method, tc.uri, rec.Code, tc.want, rec.Body)
			}
		})
	}
}
