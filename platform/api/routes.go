package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/platform/ingest"
	"github.com/vzn/vx/platform/teamops"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

// tool serves a GET route with a tool's own handler: the query string and
// the named path values become its arguments (a number-looking limit is a
// number; everything else is a string, checked by the tool exactly as over
// MCP), and the answer is the tool's structured content. A value holding
// NUL or bytes that are not UTF-8 is refused here, as DecodeInput refuses
// it over MCP: encoding it as JSON would replace those bytes.
func (s *Server) tool(name string, pathArgs []string) authed {
	t := s.tools[name]
	return func(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
		release, ok := s.slot(w, s.reads, p, false)
		if !ok {
			return
		}
		defer release()
		args := map[string]any{}
		for k, vs := range r.URL.Query() {
			if len(vs) != 1 {
				writeErr(w, http.StatusBadRequest, fmt.Sprintf("query parameter %q is given %d times; give it once", k, len(vs)))
				return
			}
			if err := opkit.CheckText(k, vs[0]); err != nil {
				writeErr(w, http.StatusBadRequest, err.Error())
				return
			}
			args[k] = vs[0]
			if k == "limit" {
				if f, err := strconv.ParseFloat(vs[0], 64); err == nil {
					args[k] = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
				}
			}
		}
		for _, k := range pathArgs {
			if err := opkit.CheckText(k, r.PathValue(k)); err != nil {
				writeErr(w, http.StatusBadRequest, err.Error())
				return
			}
			args[k] = r.PathValue(k)
		}
		raw, _ := json.Marshal(args)
		out, err := t.Handler(r.Context(), &mcpserver.Call{Name: name, Arguments: raw, Progress: func(float64, float64, string) {}})
		if err != nil {
			s.writeOpError(w, err)
			return
		}
		writeJSONValue(w, http.StatusOK, out)
	}
}

// writeOpError maps an operation's error to a status: the database's own
// trouble is 503, no workspace yet is 404, anything else is a refusal of
// the arguments (400) carrying the same text as the tool's isError.
func (s *Server) writeOpError(w http.ResponseWriter, err error) {
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case errors.As(err, &pgErr), errors.As(err, &netErr), errors.Is(err, context.DeadlineExceeded):
		s.log.Error().Err(err).Msg("reading the database")
		writeErr(w, http.StatusServiceUnavailable, "the database did not answer; try again")
	case errors.Is(err, teamops.ErrNoWorkspace):
		writeErr(w, http.StatusNotFound, err.Error())
	default:
		writeErr(w, http.StatusBadRequest, err.Error())
	}
}

// known is POST /v1/runs/known.
func (s *Server) known(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
	var q wire.KnownRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&q); err != nil {
		writeErr(w, http.StatusBadRequest, `want {"workspace": "SLUG", "runIds": ["…"]}`)
		return
	}
	res, err := ingest.Known(r.Context(), s.pool, p, &q)
	switch {
	case writeIngestError(w, err):
	case err != nil:
		s.writeOpError(w, err)
	default:
		writeJSONValue(w, http.StatusOK, res)
	}
}

// ingest is POST /v1/runs.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request, p *tokens.Principal) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, wire.MaxPushBytes))
	if err != nil {
		writeErr(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a pushed run is at most %d bytes", wire.MaxPushBytes))
		return
	}
	var run wire.PushRun
	if err := json.Unmarshal(body, &run); err != nil {
		writeErr(w, http.StatusBadRequest, "the body is not a pushed run: "+err.Error())
		return
	}
	res, err := ingest.Push(r.Context(), s.pool, p, &run)
	switch {
	case writeIngestError(w, err):
	case err != nil:
		s.log.Error().Err(err).Str("run", run.RunID).Msg("storing a pushed run")
		writeErr(w, http.StatusServiceUnavailable, "the run could not be stored; push it again")
	case res.Created:
		writeJSONValue(w, http.StatusCreated, res)
	default:
		writeJSONValue(w, http.StatusOK, res)
	}
}

// writeIngestError answers an *ingest.Error in err (403 where the token
// may not, 400 where the request is wrong) and says whether it did; any
// other error is left to the caller.
func writeIngestError(w http.ResponseWriter, err error) bool {
	var ie *ingest.Error
	if !errors.As(err, &ie) {
		return false
	}
	if ie.Forbidden {
		writeErr(w, http.StatusForbidden, ie.Msg)
	} else {
		writeErr(w, http.StatusBadRequest, ie.Msg)
	}
	return true
}
