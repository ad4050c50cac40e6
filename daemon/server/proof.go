package server

import (
	"bytes"
	"net/http"

	"github.com/vzn/vx/protocol/proof"
)

// proved answers a request that carries a nonce (proof.NonceHeader) with
// the proof that this daemon knows its token: the answer, buffered whole,
// goes out with proof.ProofHeader, the MAC of the nonce, the request, the
// status and the body. A client trusts none of the answer without it
// (docs/vxd.md, "Proof of identity"). Only answers that are small and end
// are proved this way: /hello, /status, /changes, /shutdown.
func (d *daemon) proved(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		nonce := r.Header.Get(proof.NonceHeader)
		if nonce == "" {
			h(w, r)
			return
		}
		if !proof.ValidNonce(nonce) {
			http.Error(w, proof.NonceHeader+": want a nonce of 64 lowercase hex digits", http.StatusBadRequest)
			return
		}
		a := &answer{header: w.Header(), status: http.StatusOK}
		h(a, r)
		w.Header().Set(proof.ProofHeader, proof.Answer(d.token, d.port, nonce, r.Method, r.RequestURI, a.status, a.body.Bytes()))
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body.Bytes())
	}
}

// answer is a handler's answer, kept until it is proved.
type answer struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(status int) {
	if !a.wrote {
		a.status, a.wrote = status, true
	}
}

func (a *answer) Write(p []byte) (int, error) {
	a.wrote = true
	return a.body.Write(p)
}

// handleHello answers proof.HelloPath: nothing but the proof.
func handleHello(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
