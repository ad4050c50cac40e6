package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// serveMCP answers one POST /mcp. A request of the stateless era (its
// revision in params._meta) is served by httpapi's stateless
// code, exactly as vxd serves it. Anything else is the session era: a
// message or a batch, in a session that lives for this request only (the
// revision comes from the request's header, 2025-03-26 when it has none);
// only notifications → 202.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeErr(w, http.StatusUnsupportedMediaType, "unsupported media type: POST a JSON-RPC body with Content-Type: application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeErr(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: the limit is %d bytes", maxMCPBody))
			return
		}
		writeErr(w, http.StatusBadRequest, "reading the request body failed")
		return
	}
	msgs, batch, derr := jsonrpc.Decode(body)
	if derr != nil {
		b, _ := jsonrpc.Encode(jsonrpc.NewError(nil, derr))
		writeRaw(w, http.StatusBadRequest, b)
		return
	}
	slots := s.reads
	if !batch && msgs[0].Method == mcp.MethodSubscriptionsListen {
		slots = s.streams
	}
	release, ok := s.slot(w, slots, p, true)
	if !ok {
		return
	}
	defer release()
	if s.stateless.Serve(w, r, msgs, batch) {
		return // the stateless era, served by vxd's own code
	}
	rev := r.Header.Get(mcp.HeaderProtocolVersion) // the revision after initialize
	if rev == "" {
		rev = mcp.DefaultHTTPRevision
	} else if !mcp.IsSupported(rev) {
		writeRPCError(w, http.StatusBadRequest, fmt.Sprintf("unsupported MCP-Protocol-Version %q; supported: %s", rev, strings.Join(mcp.Supported(), ", ")))
		return
	}
	reply := s.mcp.RequestSession(rev).Answer(r.Context(), msgs, batch, nil)
	defer reply.Release() // once written: the shared answer bound counts it until then
	if reply.Empty() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(reply.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = reply.WriteTo(w)
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeRPCError(w http.ResponseWriter, status int, msg string) {
	b, _ := jsonrpc.Encode(jsonrpc.NewError(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s", msg)))
	writeRaw(w, status, b)
}
