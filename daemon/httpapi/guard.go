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
)

// GuardOptions configure Guard.
type GuardOptions struct {
	// Port is the daemon's listening port; Host must name it.
	Port int
	// Token is the bearer token. An empty token refuses every request.
	Token string
	// CookieName, when set, lets a cookie of that name whose value is the
	// token authenticate too (for a page the daemon serves itself).
	CookieName string
	// Logger records refusals (never the token). The zero value logs nothing.
	Logger zerolog.Logger
}

const (
	allowMethods  = "GET, POST, DELETE, OPTIONS"
	allowHeaders  = "Authorization, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Accept, Mcp-Method, Mcp-Name"
	exposeHeaders = "Mcp-Session-Id, MCP-Protocol-Version"
)

// Guard wraps next with the checks every daemon route needs, in order:
// the Host must be a loopback name with the daemon's port (else 403, which
// defeats DNS rebinding); an Origin, when sent, must be a loopback origin
// (else 403, "null" included); a CORS preflight from a loopback origin is
// answered 204 without a token; anything else needs the bearer token
// (else 401).
func Guard(next http.Handler, opts GuardOptions) http.Handler {
	want := sha256.Sum256([]byte(opts.Token))
	authorized := func(r *http.Request) bool {
		if opts.Token == "" {
			return false
		}
		var got string
		if scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			got = strings.TrimSpace(tok)
		} else if opts.CookieName != "" {
			// Cookies ignore ports: another local page (127.0.0.1:5173)
			// would send the daemon's cookie too. A cookie counts only from
			// the daemon's own pages (or with no Origin at all).
			if o := r.Header.Get("Origin"); o != "" && !ownOrigin(o, opts.Port) {
				return false
			}
			if c, err := r.Cookie(opts.CookieName); err == nil {
				got = c.Value
			}
		}
		if got == "" {
			return false
		}
		// Hash both sides so the comparison's time says nothing about length.
		sum := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := opts.Logger.With().Str("method", r.Method).Str("path", r.URL.Path).Logger()
		if !loopbackHost(r.Host, opts.Port) {
			log.Warn().Str("host", r.Host).Msg("refused: host is not this daemon's loopback address")
			http.Error(w, "forbidden: the Host header must be 127.0.0.1, localhost or [::1] with this daemon's port", http.StatusForbidden)
			return
		}
		origins, hasOrigin := r.Header["Origin"]
		origin := ""
		if hasOrigin {
			origin = strings.Join(origins, ",")
			if !loopbackOrigin(origin) {
				log.Warn().Str("origin", origin).Msg("refused: origin is not a loopback origin")
				http.Error(w, "forbidden: requests from origin "+strconv.Quote(origin)+" are not allowed; only pages on localhost may call this daemon", http.StatusForbidden)
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
			log.Warn().Msg("refused: missing or wrong bearer token")
			w.Header().Set("WWW-Authenticate", `Bearer realm="vxd"`)
			http.Error(w, "unauthorized: send Authorization: Bearer <token>, the token from the daemon's discovery file", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isLoopbackName(host string) bool {
	host = strings.ToLower(host)
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// loopbackHost reports whether a Host header names a loopback host with port.
func loopbackHost(hostport string, port int) bool {
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

// ownOrigin reports whether origin is the daemon's own (its page).
func ownOrigin(origin string, port int) bool {
	p := strconv.Itoa(port)
	for _, host := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if origin == "http://"+host+":"+p {
			return true
		}
	}
	return false
}
