package remotecache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// maxArtifact bounds a download; a larger body is refused as a miss.
const maxArtifact int64 = 4 << 30

// maxSmallBody bounds status and error bodies.
const maxSmallBody = 64 << 10

// errNotFound is a 404: the server holds no artifact of that id.
var errNotFound = errors.New("artifact not found")

// requestError is a request that failed: the server could not be reached, timed
// out, or answered with an error status. It never holds the token.
type requestError struct {
	Server string // scheme://host
	Op     string // "status", "download", "upload", "check"
	Kind   string // a wire.Remote* status
	Code   int    // HTTP status, 0 when there was no response
	Detail string
}

func (e *requestError) Error() string {
	what := map[string]string{
		wire.RemoteUnreachable:  "unreachable",
		wire.RemoteTimeout:      "timed out",
		wire.RemoteUnauthorized: "the token was refused (HTTP 401; check VX_REMOTE_CACHE_TOKEN)",
		wire.RemoteForbidden:    "forbidden (HTTP 403)",
		wire.RemoteServerError:  "server error",
		wire.RemoteBadResponse:  "unexpected response",
		wire.RemoteMisconfig:    "not sent",
	}[e.Kind]
	if e.Code != 0 && e.Kind != wire.RemoteUnauthorized && e.Kind != wire.RemoteForbidden {
		what += fmt.Sprintf(" (HTTP %d)", e.Code)
	}
	msg := fmt.Sprintf("remote cache %s: %s: %s", e.Server, e.Op, what)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// client speaks the /v8/artifacts API. Its zero value is not usable; use
// newClient.
type client struct {
	s    *Settings
	http *http.Client
}

// newClient returns a client for s, with one connection pool for the run.
func newClient(s *Settings) *client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	tr.ResponseHeaderTimeout = s.Timeout
	return &client{s: s, http: &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		// A redirect (a CDN read URL) carries no token to another host.
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if req.URL.Host != via[0].URL.Host {
			req.Header.Del("Authorization")
		}
		// The tag comes with the server's answer, not the CDN's.
		if p, ok := req.Context().Value(tagKey{}).(*string); ok && req.Response != nil {
			if t := req.Response.Header.Get("x-artifact-tag"); t != "" {
				*p = t
			}
		}
		return nil
	}}}
}

// tagKey carries, in a download's context, where a tag seen on a redirect
// is kept.
type tagKey struct{}

// Close drops idle connections.
func (c *client) Close() { c.http.CloseIdleConnections() }

// teamParam follows Turborepo: an id beginning "team_" is teamId, anything
// else is the team's slug.
func (c *client) endpoint(id string) string {
	q := url.Values{}
	if strings.HasPrefix(c.s.Team, "team_") {
		q.Set("teamId", c.s.Team)
	} else {
		q.Set("slug", c.s.Team)
	}
	return c.s.URL + "/v8/artifacts/" + url.PathEscape(id) + "?" + q.Encode()
}

func (c *client) request(ctx context.Context, method, id string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint(id), body)
	if err != nil {
		return nil, &requestError{Server: c.s.Server(), Op: method, Kind: wire.RemoteMisconfig, Detail: "building the request failed"}
	}
	if c.s.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.s.Token)
	}
	req.Header.Set("User-Agent", "vx")
	return req, nil
}

// fail classifies a transport error or an error status.
func (c *client) fail(op string, err error, resp *http.Response) *requestError {
	e := &requestError{Server: c.s.Server(), Op: op}
	if resp == nil {
		var ne net.Error
		switch {
		case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
			e.Kind, e.Detail = wire.RemoteTimeout, fmt.Sprintf("no answer within %s", c.s.Timeout)
		default:
			e.Kind, e.Detail = wire.RemoteUnreachable, transportDetail(err)
		}
		return e
	}
	e.Code = resp.StatusCode
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		e.Kind = wire.RemoteUnauthorized
	case resp.StatusCode == http.StatusForbidden:
		e.Kind = wire.RemoteForbidden
		e.Detail = serverMessage(resp.Body)
	case resp.StatusCode >= 500:
		e.Kind = wire.RemoteServerError
		e.Detail = serverMessage(resp.Body)
	default:
		e.Kind = wire.RemoteBadResponse
		e.Detail = serverMessage(resp.Body)
	}
	return e
}

// transportDetail keeps the cause of a transport error without the URL
// (which net/http repeats in every message).
func transportDetail(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Op + ": " + oe.Err.Error()
	}
	return err.Error()
}

// serverMessage reads a Turborepo-style error body's message, bounded.
func serverMessage(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, maxSmallBody))
	var v struct {
		Message string `json:"message"`
		Error   any    `json:"error"`
	}
	if json.Unmarshal(b, &v) == nil && v.Message != "" {
		return clip(v.Message)
	}
	return clip(strings.TrimSpace(string(b)))
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxSmallBody))
	resp.Body.Close()
}

// Status asks GET /v8/artifacts/status: the server's cache status
// ("enabled", "disabled", "over_limit", "paused") and the round trip.
func (c *client) Status(ctx context.Context) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, c.s.Timeout)
	defer cancel()
	req, err := c.request(ctx, http.MethodGet, "status", nil)
	if err != nil {
		return "", 0, err
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return "", 0, c.fail("status", err, nil)
	}
	defer drain(resp)
	rtt := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return "", rtt, c.fail("status", nil, resp)
	}
	var v struct {
		Status string `json:"status"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxSmallBody)).Decode(&v); err != nil || v.Status == "" {
		return "", rtt, &requestError{Server: c.s.Server(), Op: "status", Kind: wire.RemoteBadResponse, Code: resp.StatusCode, Detail: "no status in the answer"}
	}
	return v.Status, rtt, nil
}

// Exists asks HEAD /v8/artifacts/:id.
func (c *client) Exists(ctx context.Context, id string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.s.Timeout)
	defer cancel()
	req, err := c.request(ctx, http.MethodHead, id, nil)
	if err != nil {
		return false, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return false, c.fail("check", err, nil)
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusOK:
		return true, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, c.fail("check", nil, resp)
}

// download is an open GET of an artifact. Body must be closed.
type download struct {
	Body   io.ReadCloser
	Tag    string // x-artifact-tag, "" when absent
	Length int64  // -1 when unknown
	cancel context.CancelFunc
}

// Close releases the response.
func (d *download) Close() error {
	err := d.Body.Close()
	d.cancel()
	return err
}

// Get opens GET /v8/artifacts/:id; errNotFound on a 404. The whole
// transfer, body included, is bounded by the timeout.
func (c *client) Get(ctx context.Context, id string) (*download, error) {
	var redirectTag string
	ctx = context.WithValue(ctx, tagKey{}, &redirectTag)
	ctx, cancel := context.WithTimeout(ctx, c.s.Timeout)
	req, err := c.request(ctx, http.MethodGet, id, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, c.fail("download", err, nil)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		if resp.ContentLength > maxArtifact {
			drain(resp)
			cancel()
			return nil, &requestError{Server: c.s.Server(), Op: "download", Kind: wire.RemoteBadResponse, Code: 200,
				Detail: fmt.Sprintf("artifact of %d bytes is over the %d-byte limit", resp.ContentLength, maxArtifact)}
		}
		tag := resp.Header.Get("x-artifact-tag")
		if tag == "" {
			tag = redirectTag
		}
		return &download{Body: resp.Body, Tag: tag, Length: resp.ContentLength, cancel: cancel}, nil
	case http.StatusNotFound:
		drain(resp)
		cancel()
		return nil, errNotFound
	}
	e := c.fail("download", nil, resp)
	drain(resp)
	cancel()
	return nil, e
}

// Put uploads body (size bytes) as artifact id with its duration and, when
// tag is set, its signature.
func (c *client) Put(ctx context.Context, id string, body io.Reader, size int64, durationMs int64, tag string) error {
	ctx, cancel := context.WithTimeout(ctx, c.s.Timeout)
	defer cancel()
	req, err := c.request(ctx, http.MethodPut, id, body)
	if err != nil {
		return err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("x-artifact-duration", strconv.FormatInt(max(0, durationMs), 10))
	if tag != "" {
		req.Header.Set("x-artifact-tag", tag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.fail("upload", err, nil)
	}
	defer drain(resp)
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return c.fail("upload", nil, resp)
}
