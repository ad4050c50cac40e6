package wire

import (
	"fmt"
	"strings"
	"time"
)

// Discovery is the daemon's discovery file, .vx/daemon/vxd.json (0600).
// It is a hint: a client dials it and checks Version and Root before
// trusting it.
type Discovery struct {
	PID       int       `json:"pid"`
	Port      int       `json:"port"`
	Token     string    `json:"token"`
	Version   string    `json:"version"`
	Root      string    `json:"root"`
	StartedAt time.Time `json:"startedAt"`
}

// Status is what `vxd status --json` prints and GET /status answers.
type Status struct {
	PID          int       `json:"pid"`
	Port         int       `json:"port"`
	URL          string    `json:"url"`
	PageURL      string    `json:"pageUrl"`
	Version      string    `json:"version"`
	Workspace    string    `json:"workspace"`
	StartedAt    time.Time `json:"startedAt"`
	UptimeMs     int64     `json:"uptimeMs"`
	Sessions     int       `json:"sessions"`
	Requests     uint64    `json:"requests"`
	RSSBytes     int64     `json:"rssBytes"`
	HeapBytes    uint64    `json:"heapBytes"`
	Projects     int       `json:"projects"`
	Tasks        int       `json:"tasks"`
	LastReload   *Reload   `json:"lastReload"`
	ConfigError  string    `json:"configError,omitempty"`
	LastRun      *RunBrief `json:"lastRun"`
	IdleTimeout  string    `json:"idleTimeout"`
	LastActivity time.Time `json:"lastActivity"`
	// Journal is the change journal's state in a sentence (see Changes).
	Journal string `json:"journal,omitempty"`
	// JournalStopped: the journal gave up until vxd restarts (it did not
	// start, a directory could not be watched, the tree has more files
	// than the open-file limit lets it watch, the root moved): every run
	// stats every file. Journal says why.
	JournalStopped bool `json:"journalStopped,omitempty"`
	// PluginEditsIgnored, when set, says which plugin rewrote its own
	// sources while vxd's reloads asked it, again and again: vxd stopped
	// reloading on such edits after a few in a row, until one made
	// outside a reload (an edit of yours).
	PluginEditsIgnored string `json:"pluginEditsIgnored,omitempty"`
}

// Reload is one rebuild of the workspace model.
type Reload struct {
	At         time.Time `json:"at"`
	OK         bool      `json:"ok"`
	Error      string    `json:"error,omitempty"`
	DurationMs int64     `json:"durationMs"`
	Trigger    string    `json:"trigger,omitempty"`
	// PluginsFailed names (as declared) the plugins that failed in a
	// reload that loaded (OK); vx info says why.
	PluginsFailed []string `json:"pluginsFailed,omitempty"`
}

// PluginsFailedText says which plugins failed in a reload that loaded,
// as vxd status and the feed's model.reloaded say it ("" for none).
func PluginsFailedText(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "1 plugin failed: " + names[0]
	}
	return fmt.Sprintf("%d plugins failed: %s", len(names), strings.Join(names, ", "))
}

// RunBrief is a run in one line.
type RunBrief struct {
	RunID      string    `json:"runId"`
	Status     string    `json:"status"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs int64     `json:"durationMs"`
	Tasks      int       `json:"tasks"`
	Cached     int       `json:"cached"`
	Failed     int       `json:"failed"`
	Command    string    `json:"command"`
}

// NotRunning is what `vxd status --format json` prints when no daemon
// answers for the workspace (it exits 1).
type NotRunning struct {
	Running   bool   `json:"running"` // always false
	Workspace string `json:"workspace"`
	Message   string `json:"message"`
}
