package wire

import (
	"encoding/json"
	"time"
)

// What vx and vx-platform agree on.
const (
	// PlatformRunsPath is the ingest route: POST a PushRun.
	PlatformRunsPath = "/v1/runs"
	// PlatformTokenPrefix starts every platform API token.
	PlatformTokenPrefix = "vxc_"
	// PlatformOutboxDir holds runs not yet delivered, under .vx/.
	PlatformOutboxDir = "outbox"
	// MaxPushBytes bounds one ingest body.
	MaxPushBytes = 32 << 20
	// MaxPushTasks bounds the task rows of one pushed run.
	MaxPushTasks = 20000
)

// Token scopes. admin may do what read and ingest may, and manage tokens.
const (
	ScopeRead   = "read"
	ScopeIngest = "ingest"
	ScopeAdmin  = "admin"
)

// PushRun is one finished vx run as vx sends it to the platform: the
// invocation header, every task row and the (masked) key components of
// every key the run computed.
type PushRun struct {
	Workspace  string                     `json:"workspace"` // the workspace slug
	RunID      string                     `json:"runId"`
	Command    string                     `json:"command"`
	GitBranch  string                     `json:"gitBranch"`
	GitCommit  string                     `json:"gitCommit"`
	CI         bool                       `json:"ci"`
	StartedAt  time.Time                  `json:"startedAt"`
	EndedAt    *time.Time                 `json:"endedAt"`
	ExitCode   *int                       `json:"exitCode"`
	Status     string                     `json:"status"`
	DurationMs int64                      `json:"durationMs"`
	Totals     RunTotals                  `json:"totals"`
	Tasks      []PushTask                 `json:"tasks"`
	Components map[string]json.RawMessage `json:"components"` // key → components
}

// PushTask is a task row with what only history knows.
type PushTask struct {
	TaskRow
	StartedAt *time.Time `json:"startedAt,omitempty"`
	// EntryBytes is the size of the cache entry the task wrote, when the
	// local cache still holds it.
	EntryBytes *int64 `json:"entryBytes,omitempty"`
	// Failure says why a failed task failed; only failed, timed-out and
	// interrupted tasks carry one, at most MaxPushFailures of a run.
	Failure *PushFailure `json:"failure,omitempty"`
}

// Bounds of what a run pushes of its failures.
const (
	// MaxPushFailures bounds the tasks of one run that carry a Failure.
	MaxPushFailures = 50
	// MaxFailureExcerpt bounds a Failure's excerpt, in bytes.
	MaxFailureExcerpt = 9 << 10
	// MaxFailureLocations bounds a Failure's locations.
	MaxFailureLocations = 50
	// MaxFailureText bounds a location's file and message, in bytes.
	MaxFailureText = 1024
)

// PushFailure is why a task failed, as vx found it in the task's output:
// an excerpt of the output and the source locations it names, both masked
// before they leave the machine. Locations under the workspace are
// relative to its root.
type PushFailure struct {
	Excerpt   string            `json:"excerpt"`
	Truncated bool              `json:"truncated,omitempty"`
	Locations []FailureLocation `json:"locations"`
}

// FailureLocation is one place in the source a tool's output names.
type FailureLocation struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message,omitempty"`
	Tool    string `json:"tool,omitempty"`
}

// PushResult answers an ingest.
type PushResult struct {
	WorkspaceID string `json:"workspaceId"`
	RunID       string `json:"runId"`
	// Created is false when the platform already had this run.
	Created bool `json:"created"`
}

// PlatformKnownPath answers which of a workspace's run ids the platform
// already stores (ingest scope), so vx push --all sends only the others.
const PlatformKnownPath = "/v1/runs/known"

// PlatformHealthPath answers GET, without a token, whether the platform's
// database answers.
const PlatformHealthPath = "/healthz"

// MaxKnownQuery bounds the run ids of one KnownRequest.
const MaxKnownQuery = 1000

// KnownRequest asks about run ids of one workspace (by slug).
type KnownRequest struct {
	Workspace string   `json:"workspace"`
	RunIDs    []string `json:"runIds"`
}

// KnownResponse lists the asked run ids the platform stores.
type KnownResponse struct {
	Known []string `json:"known"`
}
