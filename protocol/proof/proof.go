// Package proof is how vx and vxd show each other that they know the
// workspace daemon's token without sending it (docs/vxd.md, "Proof of
// identity"). Another local user can listen on a port a dead vxd left in
// its discovery file; it cannot read that file, so it cannot compute
// these MACs, and a client never sends the token, nor trusts an answer,
// before the peer has.
//
// A client draws a fresh nonce for each request and sends it in
// NonceHeader. It authorizes the request with Scheme instead of the
// bearer token: Authorization: VxdMac Request(token, port, nonce, method,
// uri). vxd answers a request with a nonce with ProofHeader: Answer(token,
// port, nonce, method, uri, status, body). Both are HMAC-SHA256 keyed with
// the token, over a label and the fields one per line; port is the one the
// client dialed (the daemon's own), so neither MAC can be relayed to or
// from a daemon on another port, and the labels differ, so a client's MAC
// is never a daemon's proof.
package proof

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

const (
	// HelloPath answers 204 with a proof and nothing else: a client
	// proves a connection with it before sending the token on it.
	HelloPath = "/hello"
	// NonceHeader carries the client's nonce.
	NonceHeader = "Vxd-Nonce"
	// ProofHeader carries the daemon's Answer MAC.
	ProofHeader = "Vxd-Proof"
	// Scheme is the Authorization scheme of a request authorized by its
	// MAC: "VxdMac <hex MAC>". It is for requests without a body.
	Scheme = "VxdMac"
	// nonceBytes is the size of a nonce; it travels as lowercase hex.
	nonceBytes = 32
)

// Labels of the two MACs (the first line of what is MACed).
const (
	requestLabel = "vxd-request-v1"
	answerLabel  = "vxd-answer-v1"
)

// NewNonce draws a fresh nonce.
func NewNonce() (string, error) {
	b := make([]byte, nonceBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// ValidNonce reports whether s is a nonce as NewNonce writes it.
func ValidNonce(s string) bool { return validHex(s, 2*nonceBytes) }

// ValidMAC reports whether s is a MAC as Request and Answer write it.
func ValidMAC(s string) bool { return validHex(s, 2*sha256.Size) }

func validHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Request is the client's MAC of a request: method and uri as on the
// request line (uri is path?query, never holding a newline).
func Request(token string, port int, nonce, method, uri string) string {
	return mac(token, requestLabel, strconv.Itoa(port), nonce, method, uri)
}

// Answer is the daemon's MAC of its answer to the request with nonce:
// its status code and the SHA-256 of its body.
func Answer(token string, port int, nonce, method, uri string, status int, body []byte) string {
	sum := sha256.Sum256(body)
	return mac(token, answerLabel, strconv.Itoa(port), nonce, method, uri, strconv.Itoa(status), hex.EncodeToString(sum[:]))
}

// Equal compares two MACs in constant time.
func Equal(got, want string) bool { return hmac.Equal([]byte(got), []byte(want)) }

// mac is the hex HMAC-SHA256, keyed with token, of the lines.
func mac(token string, lines ...string) string {
	n := len(lines)
	for _, l := range lines {
		n += len(l)
	}
	msg := make([]byte, 0, n)
	for i, l := range lines {
		if i > 0 {
			msg = append(msg, '\n')
		}
		msg = append(msg, l...)
	}
	h := hmac.New(sha256.New, []byte(token))
	h.Write(msg)
	return hex.EncodeToString(h.Sum(nil))
}
