// Package api is the platform's HTTP surface: POST /mcp (the team tools,
// one MCP server shared with vxd, a stateless session per request), the
// /v1 routes (ingest, and the same answers as the tools for scripts and
// the dashboard), the dashboard itself, and authentication: a vxc_ bearer
// token looked up by hash on every request, or a dashboard session cookie.
// Nothing of an answer lives in one replica's memory.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/internal/connlimit"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/platform/teamops"
	"github.com/vzn/vx/platform/teamtools"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

// maxMCPBody bounds a POST /mcp body.
const maxMCPBody = 4 << 20

// Options configure a Server.
type Options struct {
	Version string
	Logger  zerolog.Logger
	// SecureCookies marks the session cookie Secure (the platform is
	// served over HTTPS by a reverse proxy).
	SecureCookies bool
}

// Server serves the platform.
type Server struct {
	pool  *pgxpool.Pool
	ops   *teamops.Env
	mcp   *mcpserver.Server
	tools map[string]mcpserver.Tool
	log   zerolog.Logger
	opts  Options
	mux   *http.ServeMux

	// stateless serves the stateless era of mcp with vxd's code.
	stateless *httpapi.Stateless
	// streams are the listen streams' slots, reads the reads' (in
	// flight, waiting included), per token and in all.
	streams, reads *connlimit.Slots
}

// New returns the platform's handler over pool.
func New(pool *pgxpool.Pool, opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	env := &teamops.Env{Pool: pool}
	s := &Server{pool: pool, ops: env, log: opts.Logger, opts: *opts, tools: map[string]mcpserver.Tool{},
		streams: newStreams(), reads: newReads()}
	s.mcp = mcpserver.New(&mcpserver.Options{Name: "vx-platform", Version: opts.Version, Logger: opts.Logger,
		Limits:       &mcpserver.Limits{CallsAtOnce: heavyReads, SharedAnswerBytes: sharedAnswers},
		Instructions: "Team-wide vx run history over every workspace of your org: list_workspaces, then list_runs, get_run, run_trends, cache_stats, why_did_rerun and compare_runs."})
	catalog := teamtools.Register(s.mcp, env)
	s.stateless = httpapi.NewStateless(s.mcp, &httpapi.MCPOptions{Logger: opts.Logger})
	for _, t := range catalog {
		s.tools[t.Def.Name] = t
	}
	s.routes()
	return s
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("POST "+wire.MCPPath, s.bearer("read", s.serveMCP))
	notAllowed := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "POST")
		writeErr(w, http.StatusMethodNotAllowed, "this endpoint keeps no sessions and no streams: POST JSON-RPC messages")
	}
	m.HandleFunc("GET "+wire.MCPPath, notAllowed)
	m.HandleFunc("DELETE "+wire.MCPPath, notAllowed)
	m.HandleFunc("POST "+wire.PlatformRunsPath, s.bearer("ingest", s.ingest))
	m.HandleFunc("POST "+wire.PlatformKnownPath, s.bearer("ingest", s.known))
	m.HandleFunc("GET /v1/workspaces", s.reader(s.tool("list_workspaces", nil)))
	m.HandleFunc("GET /v1/runs", s.reader(s.tool("list_runs", nil)))
	m.HandleFunc("GET /v1/runs/{runId}", s.reader(s.tool("get_run", []string{"runId"})))
	m.HandleFunc("GET /v1/runs/{runId}/compare", s.reader(s.tool("compare_runs", []string{"runId"})))
	m.HandleFunc("GET /v1/runs/{runId}/why", s.reader(s.tool("why_did_rerun", []string{"runId"})))
	m.HandleFunc("GET /v1/trends", s.reader(s.tool("run_trends", nil)))
	m.HandleFunc("GET /v1/cache", s.reader(s.tool("cache_stats", nil)))
	m.HandleFunc("GET "+wire.PlatformHealthPath, s.health)
	s.dashboardRoutes(m)
	s.mux = m
}

// ServeHTTP logs one line per request: method, path, status, duration —
// never headers, query strings or bodies, which may carry tokens.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	sw.Header().Set("X-Content-Type-Options", "nosniff")
	s.mux.ServeHTTP(sw, r)
	s.log.Debug().Str("method", r.Method).Str("path", r.URL.Path).Int("status", sw.status).Dur("took", time.Since(start)).Msg("request")
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

// Unwrap lets http.ResponseController reach the connection (an event
// stream of the stateless era flushes each message).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.pool.Ping(ctx); err != nil {
		writeErr(w, http.StatusServiceUnavailable, "the database does not answer")
		return
	}
	writeJSONValue(w, http.StatusOK, map[string]string{"status": "ok", "version": s.opts.Version})
}

func writeJSONValue(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeErr(w http.ResponseWriter, status int, msg string) {
	writeJSONValue(w, status, map[string]string{"error": msg})
}

// authenticate resolves the request's bearer token (cookie: also the
// dashboard session) to a principal, or writes the 401.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, cookie bool) *tokens.Principal {
	var p *tokens.Principal
	var err error
	h := r.Header.Get("Authorization")
	switch {
	case h != "":
		scheme, tok, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			err = tokens.ErrUnauthenticated
			break
		}
		p, err = tokens.Authenticate(r.Context(), s.pool, tok)
	case cookie:
		c, cerr := r.Cookie(sessionCookie)
		if cerr != nil {
			err = tokens.ErrUnauthenticated
			break
		}
		p, err = tokens.Session(r.Context(), s.pool, c.Value)
	default:
		err = tokens.ErrUnauthenticated
	}
	if errors.Is(err, tokens.ErrUnauthenticated) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="vx-platform"`)
		writeErr(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer vxc_… with a live token of your org (vx-platform token create, or Admin → Tokens)")
		return nil
	}
	if err != nil {
		s.log.Error().Err(err).Msg("authenticating a request")
		writeErr(w, http.StatusServiceUnavailable, "cannot check the token: the database does not answer")
		return nil
	}
	return p
}

func forbid(w http.ResponseWriter, p *tokens.Principal, need string) bool {
	if p.Allows(need) {
		return false
	}
	writeErr(w, http.StatusForbidden, fmt.Sprintf("forbidden: this needs a token of scope %s (or admin); this token's scope is %s", need, p.Scope))
	return true
}

type authed func(w http.ResponseWriter, r *http.Request, p *tokens.Principal)

// bearer requires a token (never a cookie) of scope need.
func (s *Server) bearer(need string, h authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := s.authenticate(w, r, false)
		if p == nil || forbid(w, p, need) {
			return
		}
		h(w, r.WithContext(tokens.WithPrincipal(r.Context(), p)), p)
	}
}

// reader requires read scope, by token or dashboard session.
func (s *Server) reader(h authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := s.authenticate(w, r, true)
		if p == nil || forbid(w, p, "read") {
			return
		}
		h(w, r.WithContext(tokens.WithPrincipal(r.Context(), p)), p)
	}
}
