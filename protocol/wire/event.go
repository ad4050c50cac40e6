package wire

import "time"

// Event types of the daemon's live feed.
const (
	EventRunStarted    = "run.started"
	EventRunFinished   = "run.finished"
	EventTaskStarted   = "task.started"
	EventTaskFinished  = "task.finished"
	EventModelReloaded = "model.reloaded"
	EventModelFailed   = "model.failed"
	EventSessionOpened = "session.opened"
	EventSessionClosed = "session.closed"
)

// Event is one message of the live feed (and of a run's event log).
type Event struct {
	Type       string      `json:"type"`
	Time       time.Time   `json:"time"`
	RunID      string      `json:"runId,omitempty"`
	Command    string      `json:"command,omitempty"`
	Tasks      int         `json:"tasks,omitempty"`
	TaskID     string      `json:"taskId,omitempty"`
	Status     string      `json:"status,omitempty"`
	Cache      string      `json:"cache,omitempty"`
	DurationMs int64       `json:"durationMs,omitempty"`
	DependsOn  []string    `json:"dependsOn,omitempty"`
	Summary    *RunSummary `json:"summary,omitempty"`
	Error      string      `json:"error,omitempty"`
	Session    string      `json:"session,omitempty"`
}
