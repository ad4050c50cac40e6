// Package httpapi holds vxd's HTTP handlers: the Guard middleware every
// route sits behind (loopback Host, loopback Origin, bearer token, CORS for
// loopback pages) and the streamable HTTP MCP endpoint.
package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/protocol/mcp"
	"github.com/vzn/vx/protocol/proof"
)

// GuardOptions configure Guard.
type GuardOptions struct {
	// Port is the daemon's listening port; Host must name it.
	Port int
	// Token is the bearer token. An empty token refuses every request.
	Token string
	// Page, when set, lets the daemon's own status page in with a login
	// cookie: a separate credential, never the token, valid only on the
	// page's read routes.
	Page *PageAuth
	// Logger records refusals (never the token). The zero value logs nothing.
	Logger zerolog.Logger
}

const (
	allowMethods  = "GET, POST, DELETE, OPTIONS"
	allowHeaders  = "Authorization, Content-Type, " + mcp.HeaderSessionID + ", " + mcp.HeaderProtocolVersion + ", " + mcp.HeaderLastEventID + ", Accept, " + mcp.HeaderMethod + ", " + mcp.HeaderName
	exposeHeaders = mcp.HeaderSessionID + ", " + mcp.HeaderProtocolVersion
)

// Guard wraps next with the checks every daemon route needs, in order:
// the Host must be a loopback name with the daemon's port (else 403, which
// defeats DNS rebinding); an Origin, when sent, must be a loopback origin
// (else 403, "null" included); a CORS preflight from a loopback origin is
// answered 204 without a token; anything else needs the bearer token,
// or the MAC of a client that proves it knows the token without sending
// it (proof.Scheme; else 401).
func Guard(next http.Handler, opts GuardOptions) http.Handler {
	want := sha256.Sum256([]byte(opts.Token))
	authorized := func(r *http.Request) bool {
		if opts.Token == "" {
			return false
		}
		var got string
		scheme, tok, ok := strings.Cut(header(r.Header, hdrAuthorization), " ")
		if ok && scheme == proof.Scheme {
			return macAuthorized(r, opts, strings.TrimSpace(tok))
		}
		if ok && strings.EqualFold(scheme, "Bearer") {
			got = strings.TrimSpace(tok)
		} else if opts.Page != nil {
			return opts.Page.allows(r, opts.Port)
		}
		if got == "" {
			return false
		}
		// Hash both sides so the comparison's time says nothing about length.
		sum := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
	}
	refusals := &refusalLog{log: opts.Logger}
	hosts := ownHosts(opts.Port)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request's logger is built only for a refusal.
		log := func() zerolog.Logger {
			return opts.Logger.With().Str("method", clip(r.Method)).Str("path", clip(r.URL.Path)).Logger()
		}
		if !hosts[r.Host] && !LoopbackHost(r.Host, opts.Port) {
			refusals.warn(log()).Str("host", clip(r.Host)).Msg("refused: host is not this daemon's loopback address")
			http.Error(w, "forbidden: the Host header must be 127.0.0.1, localhost or [::1] with this daemon's port", http.StatusForbidden)
			return
		}
		origins, hasOrigin := r.Header["Origin"]
		origin := ""
		if hasOrigin {
			origin = strings.Join(origins, ",")
			if !loopbackOrigin(origin) {
				refusals.warn(log()).Str("origin", clip(origin)).Msg("refused: origin is not a loopback origin")
				http.Error(w, "forbidden: requests from origin "+strconv.Quote(clip(origin))+" are not allowed; only pages on localhost may call this daemon", http.StatusForbidden)
				return
			}
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", exposeHeaders)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", allowMethods)
				h.Set("Access-Control-Allow-Headers", allowHeaders)
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if !authorized(r) {
			refusals.warn(log()).Msg("refused: missing or wrong bearer token")
			w.Header().Set("WWW-Authenticate", `Bearer realm="vxd"`)
			if opts.Page.helps(r) {
				opts.Page.Help(w, r)
				return
			}
			http.Error(w, "unauthorized: send Authorization: Bearer <token>, the token from the daemon's discovery file", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// macAuthorized reports whether a request without a body carries a nonce
// and its MAC under the token (proof.Request): a client that knows the
// token, and did not send it.
func macAuthorized(r *http.Request, opts GuardOptions, mac string) bool {
	nonce := header(r.Header, proof.NonceHeader)
	if !proof.ValidNonce(nonce) || !proof.ValidMAC(mac) || r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		return false
	}
	return proof.Equal(mac, proof.Request(opts.Token, opts.Port, nonce, r.Method, r.RequestURI))
}

// loopbackNames are the daemon's own host names as its clients and its
// page write them.
var loopbackNames = []string{"127.0.0.1", "localhost", "[::1]"}

// ownHosts are the Host headers naming the daemon as its clients write
// them (Guard's fast path); LoopbackHost decides every other spelling.
func ownHosts(port int) map[string]bool {
	p := strconv.Itoa(port)
	hosts := map[string]bool{}
	for _, name := range loopbackNames {
		hosts[name+":"+p] = true
	}
	return hosts
}

func isLoopbackName(host string) bool {
	host = strings.ToLower(host)
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// LoopbackHost reports whether a Host header names the daemon listening
// on port: a loopback name with that port. Guard refuses every other
// Host; the daemon's page login asks the same.
func LoopbackHost(hostport string, port int) bool {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil || p != strconv.Itoa(port) {
		return false
	}
	// SplitHostPort strips the brackets of [::1].
	return isLoopbackName(host) && (host != "::1" || strings.HasPrefix(hostport, "["))
}

// loopbackOrigin reports whether origin is http(s) on a loopback host, any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return false
		}
	}
	return isLoopbackName(u.Hostname())
}

// OwnOrigin reports whether origin is the daemon's own (its page): http
// on one of its host names with its port.
func OwnOrigin(origin string, port int) bool {
	p := strconv.Itoa(port)
	for _, host := range loopbackNames {
		if origin == "http://"+host+":"+p {
			return true
		}
	}
	return false
}
