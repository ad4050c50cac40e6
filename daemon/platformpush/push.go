// Package platformpush sends a workspace's runs to a vx-platform: after
// every vx run (the run's result is already decided; a push is bounded in
// time and only ever warns), from .vx/outbox/ where undeliverable runs
// wait, and from the local history for vx push --all.
package platformpush

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/failures"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/taskkey"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Environment variables.
const (
	EnvURL       = "VX_PLATFORM_URL"
	EnvWorkspace = "VX_PLATFORM_WORKSPACE"
	EnvToken     = "VX_PLATFORM_TOKEN"
)

// Budget bounds the push at the end of a run, outbox included.
const Budget = 5 * time.Second

// Target is where and as whom to push.
type Target struct {
	URL       string // base URL of the platform
	Workspace string // slug
	token     string
	// ProjectDir, when set, names a project's directory relative to the
	// workspace root: a failure's relative locations are found from it.
	ProjectDir func(project string) string
}

// ForModel is Resolve for the workspace m, its failures' locations found
// from each project's directory.
func ForModel(m *workspace.Model, environ []string) (t *Target, ok bool, err error) {
	t, ok, err = Resolve(m.Config.Platform, environ)
	if t != nil {
		t.ProjectDir = func(name string) string {
			if p, found := m.Project(name); found {
				return p.Dir
			}
			return ""
		}
	}
	return t, ok, err
}

// Resolve reads the target from the configuration and environment. ok is
// false when the workspace has not opted in; err says what is wrong with
// a configuration that did.
func Resolve(cfg *workspace.PlatformConfig, environ []string) (t *Target, ok bool, err error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, found := strings.Cut(kv, "="); found {
			env[k] = v
		}
	}
	t = &Target{token: env[EnvToken]}
	if cfg != nil {
		t.URL, t.Workspace = cfg.URL, cfg.Workspace
	}
	if v := env[EnvURL]; v != "" {
		t.URL = v
	}
	if v := env[EnvWorkspace]; v != "" {
		t.Workspace = v
	}
	if t.URL == "" && t.Workspace == "" {
		return nil, false, nil
	}
	u, perr := url.Parse(t.URL)
	switch {
	case t.URL == "":
		return nil, true, fmt.Errorf("platform.workspace is set but no platform URL: set platform.url in %s or %s", workspace.ConfigFile, EnvURL)
	case perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, true, fmt.Errorf("platform URL %q is not an http(s) URL such as https://vx.example.com", workspace.RedactURL(t.URL))
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		// Said back on every push and in vx push's report: no secret in it.
		return nil, true, fmt.Errorf("platform URL %q: a base URL holds no credentials, query or fragment; the token comes only from %s", workspace.RedactURL(t.URL), EnvToken)
	case t.Workspace == "":
		return nil, true, fmt.Errorf("platform.url is set but no workspace slug: set platform.workspace in %s or %s", workspace.ConfigFile, EnvWorkspace)
	case !wire.ValidSlug(t.Workspace):
		return nil, true, fmt.Errorf("platform workspace %q is not a slug (lowercase letters, digits, '.', '_', '-')", t.Workspace)
	case t.token == "":
		return nil, true, fmt.Errorf("%s is not set: runs are not pushed (vx push --all sends the local history once it is)", EnvToken)
	}
	t.URL = strings.TrimRight(t.URL, "/")
	return t, true, nil
}

// build assembles run runID from the local history: the header, every
// task (with the summary's cache sources when the run just ended), the
// key components of every key it computed, masked, and the size of each
// cache entry it wrote that the local cache still holds.
func build(ctx context.Context, root string, h *history.Store, runID string, tg *Target, sum *wire.RunSummary, mask func(string) string) (*wire.PushRun, error) {
	run, err := h.ResolveRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	execs, err := h.Executions(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	doc := &wire.PushRun{Workspace: tg.Workspace, RunID: run.ID, Command: mask(run.Command), GitBranch: run.GitBranch, GitCommit: run.GitCommit,
		CI: run.CI, StartedAt: run.StartedAt, EndedAt: run.EndedAt, ExitCode: run.ExitCode, Status: run.Status, DurationMs: run.DurationMs,
		Tasks: make([]wire.PushTask, 0, len(execs)), Components: map[string]json.RawMessage{}}
	source := map[string]string{}
	if sum != nil {
		for _, t := range sum.Tasks {
			source[t.TaskID] = t.CacheSource
		}
	}
	store, _ := cache.Open(layout.Cache(root), &cache.Options{ReadOnly: true})
	failed := 0
	for _, x := range execs {
		started := x.StartedAt
		src, ok := source[x.TaskID]
		if !ok {
			src = x.CacheSource
		}
		t := wire.PushTask{TaskRow: wire.TaskRow{TaskID: x.TaskID, Project: x.Project, Task: x.Task, Status: x.Status, Cache: x.Cache,
			CacheSource: src, Key: x.Key, DurationMs: x.DurationMs, ExitCode: x.ExitCode, Reason: mask(x.Reason),
			BlockedBy: x.BlockedBy, TimedOut: x.TimedOut, PeakRSSBytes: x.PeakRSSBytes, CPUParallelism: x.CPUParallelism}, StartedAt: &started}
		if t.Cache == wire.CacheHit && t.CacheSource == "" && sum != nil {
			t.CacheSource = wire.CacheSourceLocal
		}
		doc.Totals.Count(&t.TaskRow)
		if x.Key != "" {
			if x.Cache == wire.CacheMiss && x.Status == wire.StatusPassed && store != nil {
				if n, ok := store.EntrySize(x.Key); ok {
					t.EntryBytes = &n
				}
			}
			if c, ok := components(ctx, h, x.Key, mask); ok {
				doc.Components[x.Key] = c
			}
		}
		if len(x.Output) > 0 && failedStatus(x.Status) && failed < wire.MaxPushFailures {
			failed++
			// Masked once the colour codes are gone: they may split a secret.
			t.Failure = failure(root, tg.projectDir(x.Project), mask(failures.StripANSI(string(x.Output))))
		}
		doc.Tasks = append(doc.Tasks, t)
	}
	return doc, nil
}

// projectDir is a project's directory relative to the root ("" when
// unknown: the root).
func (t *Target) projectDir(project string) string {
	if t.ProjectDir == nil {
		return ""
	}
	return t.ProjectDir(project)
}

func failedStatus(s string) bool {
	return s == wire.StatusFailed || s == wire.StatusTimedOut || s == wire.StatusInterrupted
}

// failure is why a task failed from its (masked) output: the locations
// it names, found in the whole output and made relative to root when
// under it, and the output's brief excerpt, within the wire's bounds.
// Bytes that are not UTF-8 are made U+FFFD first: JSON carries them so,
// three bytes each, and the bounds hold for the text as sent.
func failure(root, dir, text string) *wire.PushFailure {
	text = strings.ToValidUTF8(text, "\uFFFD")
	f := &wire.PushFailure{Locations: []wire.FailureLocation{}}
	f.Excerpt, f.Truncated = failures.Brief(text)
	for _, l := range failures.Locate(text, filepath.Join(root, filepath.FromSlash(dir)), root) {
		if len(f.Locations) == wire.MaxFailureLocations {
			break
		}
		file := l.File
		if rel, err := filepath.Rel(root, file); err == nil && filepath.IsLocal(rel) {
			file = filepath.ToSlash(rel)
		}
		f.Locations = append(f.Locations, wire.FailureLocation{File: clipText(file), Line: l.Line, Col: l.Col, Message: clipText(l.Message), Tool: l.Tool})
	}
	return f
}

// clipText bounds a location's text to wire.MaxFailureText bytes, on a
// rune boundary.
func clipText(s string) string {
	if len(s) <= wire.MaxFailureText {
		return s
	}
	n := wire.MaxFailureText - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// components reads a key's components with every definition value
// masked (env values are hashes already).
func components(ctx context.Context, h *history.Store, key string, mask func(string) string) (json.RawMessage, bool) {
	blob, err := h.Components(ctx, key)
	if err != nil {
		return nil, false
	}
	c, err := taskkey.Decode(blob)
	if err != nil {
		return nil, false
	}
	for k, v := range c.Definition {
		c.Definition[k] = mask(v)
	}
	return c.Encode(), true
}

// Error is a push the platform answered with a refusal.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("the platform refused the run (HTTP %d): %s", e.Status, e.Msg)
}

// Permanent reports whether sending it again cannot help (the document
// itself was refused, not the token).
func (e *Error) Permanent() bool {
	return e.Status == http.StatusBadRequest || e.Status == http.StatusRequestEntityTooLarge
}

// send posts one run; the token goes in the Authorization header only.
func send(ctx context.Context, t *Target, body []byte) (*wire.PushResult, error) {
	var res wire.PushResult
	if err := post(ctx, t, wire.PlatformRunsPath, body, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// post sends body to the platform's path and decodes a 2xx answer into out.
func post(ctx context.Context, t *Target, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said once, by the caller
		}
		return fmt.Errorf("sending to %s: %w", t.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		if e.Error == "" {
			e.Error = http.StatusText(resp.StatusCode)
		}
		return &Error{Status: resp.StatusCode, Msg: e.Error}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("reading the platform's answer: %w", err)
	}
	return nil
}

// OutboxDir is where undelivered runs wait.
func OutboxDir(root string) string { return filepath.Join(root, ".vx", wire.PlatformOutboxDir) }

// Keep writes an undelivered run to the outbox atomically (temp, fsync,
// rename), one file per run id.
func Keep(root, runID string, body []byte) error {
	dir := OutboxDir(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(body); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, runID+".json"))
}
