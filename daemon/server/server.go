// Package server is vxd: one long-lived daemon per workspace. It holds an
// exclusive lock on .vx/daemon for its life, writes the discovery file,
// listens on 127.0.0.1 only, keeps the workspace model and the stores warm,
// serves MCP over streamable HTTP behind the guard, reloads the model when
// configuration files change, and exits when idle or when the workspace
// is deleted.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/journal/watch"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/daemon/tools"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/internal/connlimit"
	"github.com/vzn/vx/internal/flock"
	"github.com/vzn/vx/internal/privfile"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// Options configure Serve.
type Options struct {
	Root        string
	IdleTimeout time.Duration // 0: 30 minutes; <0: never
	VX          string        // the vx executable beside vxd
	Logger      zerolog.Logger
	// Ready is called once the discovery file is written.
	Ready func(d *wire.Discovery)
	// SessionIdle ends an MCP session idle this long (0: the default,
	// mcpserver.DefaultSessionIdle; <0: never).
	SessionIdle time.Duration
	// Port is the loopback port to listen on (0: the workspace's
	// daemon.port, else any free port; <0: any free port).
	Port int
}

// ErrRunning means another vxd owns the workspace.
var ErrRunning = errors.New("another vxd already serves this workspace")

// daemon is one running vxd.
type daemon struct {
	opts  Options
	root  string
	log   zerolog.Logger
	env   *ops.Env
	mcp   *mcpserver.Server
	plans *plans.Store // planTasks' plans, for runTasks {planId}; gone with the daemon
	token string
	pages pageLogins // the status page's logins, separate from the token
	// approveKey approves plans (approve.go); never the token, never told
	// to an MCP client.
	approveKey string
	port       int
	streams    *connlimit.Slots // the long-lived requests' slots (MaxStreams)
	started    time.Time
	cancel     context.CancelFunc
	requests   requests // the HTTP requests in flight, for the idle timeout

	mu         sync.Mutex
	lastReload *wire.Reload
	// pluginEdits is vxd status's pluginEditsIgnored (see selfEdits).
	pluginEdits string
	feed        *liveFeed
	journal     *watch.Journal // nil until mounted, or when it did not start
	budget      *watch.Budget  // the descriptors the watches may hold
}

// lockDaemon takes the workspace's daemon lock without blocking; the returned
// file must stay open for the daemon's life.
func lockDaemon(root string) (*os.File, error) {
	dir := layout.Daemon(root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := privfile.OwnDir(dir); err != nil {
		return nil, err
	}
	_ = os.Chmod(dir, 0o700)
	f, err := privfile.Open(layout.DaemonLock(root), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for try := 0; ; try++ {
		err := flock.TryLock(f)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, flock.ErrHeld) || try == lockTries {
			f.Close()
			if errors.Is(err, flock.ErrHeld) {
				return nil, ErrRunning
			}
			return nil, err
		}
		time.Sleep(lockRetry)
	}
}

// A client asks whether a daemon runs by taking the lock for a moment
// (client.locked): Lock tries lockTries more times, lockRetry apart,
// before it takes the lock for another daemon's.
const (
	lockTries = 20
	lockRetry = 5 * time.Millisecond
)

// Serve runs the daemon until ctx ends, it idles out, the workspace is
// deleted, or a client asks it to stop.
func Serve(ctx context.Context, o Options) error {
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return err
	}
	lock, err := lockDaemon(root)
	if err != nil {
		return err
	}
	defer lock.Close()
	// A discovery file left by a daemon that died names its port and
	// token: gone at once, so that while this daemon starts (the lock
	// held) no client asks that port, where another process may listen,
	// knowing the dead token if a client configured by hand sent it.
	_ = os.Remove(layout.Discovery(root))
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 30 * time.Minute
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := &daemon{opts: o, root: root, log: o.Logger, started: time.Now(), cancel: cancel, feed: newLiveFeed(), plans: plans.NewStore(),
		streams: &connlimit.Slots{Max: maxStreams}}
	if d.token, err = newToken(); err != nil {
		return err
	}

	d.reapDeadRuns(ctx)
	m, loadErr := workspace.LoadServing(root)
	d.env = ops.NewEnv(root, m, loadErr, nil)
	d.env.VX, d.env.Daemon = o.VX, d.info
	defer d.env.Close()
	d.recordReload(time.Now(), m, loadErr, "start")
	d.mcp = d.newMCP()
	defer d.mcp.Close()
	d.feed.Tap = d.resourceUpdates(ctx)
	d.feed.Following = d.mcp.Following
	d.refreshCatalog()

	if err := d.writeApproveKey(); err != nil {
		return fmt.Errorf("writing the approval key: %w", err)
	}
	defer os.Remove(layout.ApproveKey(root))
	tcp, err := listen(listenPort(o, m))
	if err != nil {
		return err
	}
	d.port = tcp.Addr().(*net.TCPAddr).Port
	ln := connlimit.NewListener(tcp, maxConns)

	changes, jr, err := d.journalEndpoint(ctx)
	if err != nil {
		return err
	} else if jr != nil {
		defer jr.Close()
	}
	srv := newHTTPServer(ctx, d.handler(cancel, changes), ln, d.log)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	// Watch before announcing: an edit made once a client can find the
	// daemon must reach it.
	w, err := d.watch(ctx)
	if err != nil {
		d.log.Warn().Err(err).Msg("watching configuration files failed; edits need a restart")
	} else {
		defer w.Close()
	}
	disc, err := d.writeDiscovery()
	if err != nil {
		return err
	}
	defer os.Remove(layout.Discovery(root))
	d.log.Info().Int("port", d.port).Str("root", root).Str("version", version.Version).Msg("vxd ready")
	if o.Ready != nil {
		o.Ready(disc)
	}

	go d.idle(ctx)
	return d.serveUntilDone(ctx, srv, serveErr)
}

// handler is every route behind the guard, the approval page and the
// page login in front of it.
func (d *daemon) handler(cancel context.CancelFunc, changes http.Handler) http.Handler {
	routes := d.routes(cancel, changes)
	page := &httpapi.PageAuth{Cookie: wire.PageCookieName(d.port), Routes: pageRoutes(routes), Valid: d.pages.valid, Help: servePageLoginHelp}
	guarded := httpapi.Guard(d.requests.track(liftReadDeadline(mcpFirst(newMux(routes)))), httpapi.GuardOptions{Port: d.port, Token: d.token, Page: page, Logger: d.log})
	return d.tokenLogin(d.approvals(guarded))
}

// serveUntilDone waits for ctx to end or the server to fail (its error
// from serveErr), then shuts the server down, giving requests 3s to finish.
func (d *daemon) serveUntilDone(ctx context.Context, srv *http.Server, serveErr <-chan error) error {
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	shutCtx, c := context.WithTimeout(context.Background(), 3*time.Second)
	defer c()
	_ = srv.Shutdown(shutCtx)
	d.log.Info().Msg("vxd stopped")
	return nil
}

// newToken makes a random bearer token for the daemon's clients.
func newToken() (string, error) {
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return "", err
	}
	return hex.EncodeToString(tok), nil
}

// reapDeadRuns records as interrupted the runs whose vx was killed before
// recording their end. A failure is logged, not fatal.
func (d *daemon) reapDeadRuns(ctx context.Context) {
	if dead, err := history.ReapAt(ctx, history.Path(d.root), &history.Options{Logger: d.log}); err != nil {
		d.log.Warn().Err(err).Msg("marking runs whose vx process is gone")
	} else if len(dead) > 0 {
		d.log.Info().Strs("runs", dead).Msg("runs whose vx process is gone recorded as interrupted")
	}
}

// newMCP makes the MCP server, masking answers with the workspace's
// secrets and publishing sessions opening and closing to the feed.
func (d *daemon) newMCP() *mcpserver.Server {
	onSession := func(id string, opened bool) {
		typ := wire.EventSessionClosed
		if opened {
			typ = wire.EventSessionOpened
		}
		d.feed.Publish(wire.Event{Type: typ, Session: id[:8]})
	}
	return mcpserver.New(&mcpserver.Options{Name: "vx", Version: version.Version, Mask: d.env.Masker.String, MaskJSON: d.env.Masker.JSON,
		Logger: d.log, MaxSessions: 64, OnSession: onSession, SessionIdle: d.opts.SessionIdle,
		Instructions: "vx answers questions about this monorepo workspace: its tasks (listTasks, getConfig), its cache (getCacheStats, explainCacheKey), " +
			"its run history (getRunHistory, whyDidThisRerun, getFailures, getTaskLog, compareRuns, runTrends), and runs or plans tasks (runTasks, planTasks)."})
}

// writeDiscovery announces the daemon: it writes the discovery file
// clients find its port and token in.
func (d *daemon) writeDiscovery() (*wire.Discovery, error) {
	disc := &wire.Discovery{PID: os.Getpid(), Port: d.port, Token: d.token, Version: version.Version, Root: d.root, StartedAt: d.started}
	b, _ := json.MarshalIndent(disc, "", "  ")
	if err := hashing.WriteFileAtomic(layout.Discovery(d.root), b, 0o600); err != nil {
		return nil, fmt.Errorf("writing discovery file: %w", err)
	}
	return disc, nil
}

// refreshCatalog rebuilds the tool, resource and prompt catalogs from the
// current model; the MCP server announces changes to sessions.
func (d *daemon) refreshCatalog() {
	catalog := tools.Catalog(d.env, tools.Config{VX: d.opts.VX, OnEvent: d.feed.Publish, Plans: d.plans, PageURL: d.pageURL})
	if m, err := d.env.CurrentModel(); err == nil && m.Config.MCP.Compact() {
		catalog = tools.Compact(catalog)
	}
	catalog = append(catalog, tools.PluginTools(d.env, catalog)...)
	d.mcp.SetTools(catalog)
	res, tmpl := tools.Resources(d.env)
	if err := d.mcp.SetResources(res, tmpl); err != nil {
		d.log.Error().Err(err).Msg("resources")
	}
	d.mcp.SetPrompts(tools.Prompts(d.env))
}

// recordReload keeps a load of m (err: it failed) for vxd status: a load
// that loaded names the plugins that failed in it, as vx info shows them.
func (d *daemon) recordReload(start time.Time, m *workspace.Model, err error, trigger string) {
	r := &wire.Reload{At: time.Now(), OK: err == nil, DurationMs: time.Since(start).Milliseconds(), Trigger: trigger}
	if err != nil {
		r.Error = d.env.Masker.String(err.Error())
	} else if m != nil {
		for _, p := range m.Plugins() {
			if p.Failed() {
				r.PluginsFailed = append(r.PluginsFailed, p.Spec)
			}
		}
	}
	d.mu.Lock()
	d.lastReload = r
	d.mu.Unlock()
}

// reload rebuilds the model aside and swaps it in; a failed load keeps
// the last good model serving and is reported.
func (d *daemon) reload(trigger string) {
	start := time.Now()
	m, err := workspace.LoadServing(d.root)
	d.env.SetModel(m, err)
	d.recordReload(start, m, err, trigger)
	if err != nil {
		d.log.Warn().Str("error", d.env.Masker.String(err.Error())).Msg("configuration failed to load; the last good model keeps serving")
		d.feed.Publish(wire.Event{Type: wire.EventModelFailed, Time: time.Now(), Error: d.env.Masker.String(err.Error())})
		return
	}
	d.refreshCatalog()
	d.log.Info().Int("projects", len(m.Projects)).Dur("took", time.Since(start)).Msg("model reloaded")
	d.mu.Lock()
	failed := wire.PluginsFailedText(d.lastReload.PluginsFailed)
	d.mu.Unlock()
	d.feed.Publish(wire.Event{Type: wire.EventModelReloaded, Time: time.Now(), Error: failed})
}

func (d *daemon) status(ctx context.Context) *wire.Status {
	st := d.mcp.Stats()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := &wire.Status{PID: os.Getpid(), Port: d.port, URL: fmt.Sprintf("http://127.0.0.1:%d%s", d.port, wire.MCPPath), PageURL: fmt.Sprintf("http://127.0.0.1:%d/", d.port),
		Version: version.Version, Workspace: d.root, StartedAt: d.started, UptimeMs: time.Since(d.started).Milliseconds(), Sessions: st.Sessions,
		Requests: st.Requests, RSSBytes: rss(), HeapBytes: ms.HeapAlloc, IdleTimeout: d.opts.IdleTimeout.String(), LastActivity: st.LastActivity}
	if m, err := d.env.CurrentModel(); err == nil {
		s.Projects = len(m.Projects)
		s.Tasks = m.TaskCount()
	}
	if err := d.env.LoadError(); err != nil {
		s.ConfigError = d.env.Masker.String(err.Error())
	}
	d.mu.Lock()
	s.LastReload, s.PluginEditsIgnored = d.lastReload, d.pluginEdits
	d.mu.Unlock()
	s.Journal, s.JournalStopped = d.journal.Describe(), d.journal.Stopped()
	if h, err := d.env.History(ctx); err == nil {
		if r, err := h.LatestRun(ctx); err == nil {
			s.LastRun = &wire.RunBrief{RunID: r.ID, Status: r.Status, StartedAt: r.StartedAt, DurationMs: r.DurationMs, Tasks: r.Tasks, Cached: r.Cached, Failed: r.Failed, Command: r.Command}
		}
	}
	return s
}

func (d *daemon) handleStatus(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(d.status(r.Context()))
}

// pageURL is the status page's address.
func (d *daemon) pageURL() string { return fmt.Sprintf("http://127.0.0.1:%d/", d.port) }

// info is what getWorkspaceInfo adds about the daemon itself.
func (d *daemon) info() *wire.Status { return d.status(context.Background()) }
