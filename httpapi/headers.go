package httpapi

import (
	"net/http"
	"net/textproto"

	"github.com/vzn/vx/protocol/mcp"
)

// The request headers every POST reads, in their canonical spelling:
// net/http stores header names canonical, so these index the map at once
// where Header.Get would canonicalize its argument again on every call.
var (
	hdrAccept          = textproto.CanonicalMIMEHeaderKey("Accept")
	hdrContentType     = textproto.CanonicalMIMEHeaderKey("Content-Type")
	hdrAuthorization   = textproto.CanonicalMIMEHeaderKey("Authorization")
	hdrSessionID       = textproto.CanonicalMIMEHeaderKey(mcp.HeaderSessionID)
	hdrProtocolVersion = textproto.CanonicalMIMEHeaderKey(mcp.HeaderProtocolVersion)
)

// header is r.Header.Get(key) for a key already canonical.
func header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
