package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/pagekit"
	"github.com/vzn/vx/platform/dashboard"
	"github.com/vzn/vx/platform/teamops"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

// sessionCookie carries a dashboard session credential (never a token).
const sessionCookie = "vx_session"

// dashboardHeader must accompany the dashboard's cookie-authenticated
// POSTs: a cross-site form cannot set it, and the platform answers no
// CORS preflight.
const dashboardHeader = "X-VX-Dashboard"

func (s *Server) dashboardRoutes(m *http.ServeMux) {
	m.Handle("GET /", dashboard.Handler())
	m.Handle("GET "+pagekit.ScriptPath, pagekit.Handler())
	m.Handle("GET "+pagekit.StylePath, pagekit.Handler())
	m.HandleFunc("POST /login", s.login)
	m.HandleFunc("POST /logout", s.logout)
	m.HandleFunc("GET /v1/session", s.reader(func(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
		writeJSONValue(w, http.StatusOK, map[string]any{"org": p.Org, "scope": p.Scope, "workspace": p.Workspace})
	}))
	m.HandleFunc("GET /v1/flaky", s.reader(func(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
		release, ok := s.slot(w, s.reads, p, false)
		if !ok {
			return
		}
		defer release()
		q := r.URL.Query()
		var scope teamops.Scope
		if ws, set := q["workspace"]; set {
			if err := opkit.CheckText("workspace", ws[0]); err != nil {
				writeErr(w, http.StatusBadRequest, err.Error())
				return
			}
			scope.Workspace = &ws[0]
		}
		out, err := s.ops.Flaky(r.Context(), p, scope)
		if err != nil {
			s.writeOpError(w, err)
			return
		}
		writeJSONValue(w, http.StatusOK, out)
	}))
	m.HandleFunc("GET /v1/admin/tokens", s.admin(s.listTokens))
	m.HandleFunc("POST /v1/admin/tokens", s.admin(s.createToken))
	m.HandleFunc("POST /v1/admin/tokens/{id}/revoke", s.admin(s.revokeToken))
}

// login trades a token for a session cookie. The token must be able to
// read; it is checked, never stored.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Header.Get(dashboardHeader) == "" {
		writeErr(w, http.StatusBadRequest, "sign in from the dashboard's form")
		return
	}
	p, err := tokens.Authenticate(r.Context(), s.pool, r.PostForm.Get("token"))
	if errors.Is(err, tokens.ErrUnauthenticated) {
		writeErr(w, http.StatusUnauthorized, "that token is unknown or revoked")
		return
	}
	if err != nil {
		writeErr(w, http.StatusServiceUnavailable, "cannot check the token: the database does not answer")
		return
	}
	if !p.Allows(wire.ScopeRead) {
		writeErr(w, http.StatusForbidden, fmt.Sprintf("the dashboard needs a token of scope read or admin; this one is %s", p.Scope))
		return
	}
	cred, err := tokens.NewSession(r.Context(), s.pool, p)
	if err != nil {
		s.log.Error().Err(err).Msg("storing a session")
		writeErr(w, http.StatusServiceUnavailable, "cannot start a session: the database does not answer")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: cred, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: s.opts.SecureCookies, MaxAge: int(tokens.SessionTTL.Seconds())})
	writeJSONValue(w, http.StatusOK, map[string]any{"org": p.Org, "scope": p.Scope, "workspace": p.Workspace})
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil && r.Header.Get(dashboardHeader) != "" {
		_ = tokens.EndSession(r.Context(), s.pool, c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
}

// admin requires scope admin, by token or by session; a session's POST
// must carry the dashboard header.
func (s *Server) admin(h authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := s.authenticate(w, r, true)
		if p == nil || forbid(w, p, wire.ScopeAdmin) {
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Authorization") == "" && r.Header.Get(dashboardHeader) == "" {
			writeErr(w, http.StatusForbidden, "forbidden: missing the "+dashboardHeader+" header")
			return
		}
		h(w, r, p)
	}
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
	list, err := tokens.ListFor(r.Context(), s.pool, p)
	if err != nil {
		s.writeOpError(w, err)
		return
	}
	writeJSONValue(w, http.StatusOK, map[string]any{"tokens": list})
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
	var in struct {
		Scope     string `json:"scope"`
		Workspace string `json:"workspace"`
		Name      string `json:"name"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		writeErr(w, http.StatusBadRequest, "reading the request body failed")
		return
	}
	if err := opkit.CheckArgsText(body); err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		writeErr(w, http.StatusBadRequest, "want {\"scope\": \"read|ingest|admin\", \"workspace\": \"SLUG or empty\", \"name\": \"LABEL\"}")
		return
	}
	if p.Workspace != "" && in.Workspace != p.Workspace {
		writeErr(w, http.StatusForbidden, fmt.Sprintf("this token is pinned to workspace %q: it can mint tokens for that workspace only", p.Workspace))
		return
	}
	tok, secret, err := tokens.Create(r.Context(), s.pool, tokens.CreateInput{Org: p.Org, Scope: in.Scope, Workspace: strings.TrimSpace(in.Workspace), Name: in.Name})
	if err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSONValue(w, http.StatusCreated, map[string]any{"token": tok, "secret": secret})
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
	if err := opkit.CheckText("id", r.PathValue("id")); err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := tokens.RevokeFor(r.Context(), s.pool, r.PathValue("id"), p); err != nil {
		writeErr(w, http.StatusNotFound, err.Error())
		return
	}
	writeJSONValue(w, http.StatusOK, map[string]any{"revoked": r.PathValue("id")})
}
