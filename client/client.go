// Package client is the thin side of vxd: it finds a workspace's daemon
// from the discovery file, checks that a daemon holds the workspace lock
// and that the one on the port proves it knows the token (proof.go)
// before it trusts an answer or sends the token, checks that it answers
// with the right version and root, starts one (the vxd beside the running
// executable) when none does, and talks to it: status, stop, the change
// journal, and the shim's proved connections.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vzn/vx/internal/flock"
	"github.com/vzn/vx/internal/privfile"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// notRunningError says no daemon answers for a workspace. Err is the
// ImpostorError when the peer on the port failed the proof.
type notRunningError struct {
	Root   string
	Reason string
	Err    error
}

func (e *notRunningError) Unwrap() error { return e.Err }

func (e *notRunningError) Error() string {
	return fmt.Sprintf("no vxd is running for %s (%s); `vxd start` starts one, and `vx mcp` starts one as needed", e.Root, e.Reason)
}

// Client reaches the daemon of one workspace. Only Root is required.
type Client struct {
	Root    string
	Version string       // the version to insist on; "" accepts any
	VXD     string       // the vxd executable; "" = beside os.Executable()
	HTTP    *http.Client // nil = a client with short timeouts
	// StartTimeout bounds Ensure's wait for a new daemon (default 15s).
	StartTimeout time.Duration
	// Port is the port Start asks the new daemon to listen on (0: the
	// workspace's daemon.port or any free port; <0: any free port), and
	// that Ensure insists a running daemon has (when >0).
	Port int
	// Notice, when set, is told (once per discovery file) that the
	// process on the discovery file's port failed the proof, and what vx
	// does instead.
	Notice io.Writer

	mu      sync.Mutex
	proved  *wire.Discovery // the daemon that proved itself last (Transport)
	refused *wire.Discovery // the last discovery file refused on Notice
}

// Bounds of the answers the client reads.
const (
	maxStatusBytes   = 1 << 20
	maxShutdownBytes = 4 << 10
)

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 5 * time.Second}
}

// Discovery reads the discovery file; it is only a hint.
func (c *Client) Discovery() (*wire.Discovery, error) {
	if why := private(c.Root); why != "" {
		var err error
		if why != noDiscovery {
			err = &UntrustedError{Why: why}
		}
		return nil, &notRunningError{Root: c.Root, Reason: why, Err: err}
	}
	b, err := os.ReadFile(layout.Discovery(c.Root))
	if err != nil {
		return nil, &notRunningError{Root: c.Root, Reason: "no discovery file"}
	}
	var d wire.Discovery
	if err := json.Unmarshal(b, &d); err != nil || d.Port == 0 || d.Token == "" {
		return nil, &notRunningError{Root: c.Root, Reason: "the discovery file is unreadable"}
	}
	return &d, nil
}

// Status asks the running daemon for its status. It never starts one.
func (c *Client) Status(ctx context.Context) (*wire.Status, *wire.Discovery, error) {
	d, err := c.Discovery()
	if err != nil {
		return nil, nil, err
	}
	st, err := c.status(ctx, d)
	return st, d, err
}

// status asks the daemon d names for its status, proved (ask); a proved
// daemon of this workspace is the one Transport's connections go to.
func (c *Client) status(ctx context.Context, d *wire.Discovery) (*wire.Status, error) {
	code, body, err := c.ask(ctx, c.http(), d, http.MethodGet, wire.StatusPath, maxStatusBytes)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, &notRunningError{Root: c.Root, Reason: fmt.Sprintf("the daemon answered %d %s", code, http.StatusText(code))}
	}
	var st wire.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, fmt.Errorf("reading vxd's status: %w", err)
	}
	if st.Workspace != "" && filepath.Clean(st.Workspace) != filepath.Clean(c.Root) {
		return nil, &notRunningError{Root: c.Root, Reason: "the daemon on that port serves " + st.Workspace}
	}
	c.vouch(d)
	return &st, nil
}

// Stop asks the daemon to stop and waits until it has released the
// workspace. It is not an error when none runs.
func (c *Client) Stop(ctx context.Context) (bool, error) {
	d, err := c.Discovery()
	if err != nil {
		return false, nil
	}
	if _, err := c.status(ctx, d); err != nil {
		return false, nil
	}
	code, _, err := c.ask(ctx, c.http(), d, http.MethodPost, wire.ShutdownPath, maxShutdownBytes)
	if err == nil && code != http.StatusAccepted {
		err = fmt.Errorf("it answered %d %s", code, http.StatusText(code))
	}
	if err != nil {
		return false, fmt.Errorf("asking vxd (pid %d) to stop: %w", d.PID, err)
	}
	return true, c.waitReleased(ctx, 10*time.Second)
}

// waitReleased waits until no process holds the daemon lock.
func (c *Client) waitReleased(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if !c.locked() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("vxd for %s did not stop within %s", c.Root, limit)
}

// locked reports whether a daemon holds the workspace's lock. It takes
// the lock for a moment when it is free (flock has no other way to ask);
// a vxd starting then retries (server.Lock).
func (c *Client) locked() bool {
	f, err := os.OpenFile(layout.DaemonLock(c.Root), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock.TryLock(f); err != nil {
		return true
	}
	_ = flock.Unlock(f)
	return false
}

// vxdPath is the vxd beside the running executable.
func vxdPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(exe), "vxd"+exeSuffix)
	if _, err := os.Stat(p); err != nil {
		if lp, lerr := exec.LookPath("vxd"); lerr == nil {
			return lp, nil
		}
		return "", fmt.Errorf("vxd is not beside %s and not on PATH: install both binaries together", exe)
	}
	return p, nil
}

// Ensure returns the MCP endpoint and token of a daemon of the right
// version for the workspace, starting one when none answers and replacing
// one of another version. restart forces a fresh look after a failure.
func (c *Client) Ensure(ctx context.Context, restart bool) (string, string, error) {
	if d, err := c.Discovery(); err == nil {
		st, err := c.status(ctx, d)
		if err == nil {
			if c.Version == "" || st.Version == c.Version {
				if c.Port > 0 && d.Port != c.Port {
					return "", "", fmt.Errorf("vxd already serves %s on port %d, not %d: stop it first (vxd stop)", c.Root, d.Port, c.Port)
				}
				return fmt.Sprintf("http://127.0.0.1:%d", d.Port), d.Token, nil
			}
			if _, err := c.Stop(ctx); err != nil {
				return "", "", fmt.Errorf("replacing vxd %s with %s: %w", st.Version, c.Version, err)
			}
		}
		c.refuse(d, err, "starting a new vxd (it picks a free port and rewrites the discovery file)")
	}
	d, err := c.Start(ctx)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("http://127.0.0.1:%d", d.Port), d.Token, nil
}

// Start launches `vxd serve` detached (detach: its own session or process
// group, output to its log) and waits until it answers. When another starter wins the lock, the
// daemon it started is the one returned.
func (c *Client) Start(ctx context.Context) (*wire.Discovery, error) {
	vxd := c.VXD
	if vxd == "" {
		var err error
		if vxd, err = vxdPath(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(layout.Daemon(c.Root), 0o700); err != nil {
		return nil, err
	}
	if err := privfile.OwnDir(layout.Daemon(c.Root)); err != nil {
		return nil, err
	}
	out := layout.DaemonOut(c.Root)
	logf, err := privfile.Open(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	spawn := func() (chan error, error) {
		cmd := exec.Command(vxd, c.serveArgs()...)
		cmd.Dir = c.Root
		cmd.Stdin = nil
		cmd.Stdout, cmd.Stderr = logf, logf
		detach(cmd)
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", vxd, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		return exited, nil
	}
	exited, err := spawn()
	if err != nil {
		return nil, err
	}
	limit := c.StartTimeout
	if limit == 0 {
		limit = 15 * time.Second
	}
	deadline := time.Now().Add(limit)
	respawns := 0
	for time.Now().Before(deadline) {
		if d, err := c.Discovery(); err == nil && !c.wasRefused(d) {
			st, err := c.status(ctx, d)
			if err == nil && (c.Version == "" || st.Version == c.Version) {
				return d, nil
			}
			c.refuse(d, err, "waiting for the new vxd to rewrite the discovery file")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-exited:
			// Lost the race to another starter (keep waiting for its
			// daemon) — or the lock was free after all, as when an old
			// daemon was still letting go: start again.
			exited = nil
			if !c.locked() && respawns < 3 {
				respawns++
				if exited, err = spawn(); err != nil {
					return nil, err
				}
			} else if !c.locked() {
				// Each vxd exited with the lock free: it failed (a
				// port in use, say), and waiting longer will not help.
				return nil, fmt.Errorf("vxd exited without serving (last line of %s: %s)", out, lastLine(out))
			}
		case <-time.After(15 * time.Millisecond):
		}
	}
	return nil, c.notReady(limit, out)
}

// notReady is Start's error when no daemon became ready within limit,
// with the last line the daemons wrote to out.
func (c *Client) notReady(limit time.Duration, out string) error {
	last := lastLine(out)
	if d, err := c.Discovery(); err == nil && c.wasRefused(d) && c.locked() {
		return fmt.Errorf("vxd did not become ready within %s: the discovery file still names port %d, "+
			"whose process does not prove it is this workspace's vxd, and something holds the workspace lock "+
			"(a vxd too old to prove itself? pid %d per the discovery file; stop it and try again) (last line of %s: %s)",
			limit, d.Port, d.PID, out, last)
	}
	return fmt.Errorf("vxd did not become ready within %s (last line of %s: %s)", limit, out, last)
}

// serveArgs are the arguments of the `vxd serve` Start launches.
func (c *Client) serveArgs() []string {
	args := []string{"serve", "--root", c.Root}
	switch {
	case c.Port > 0:
		args = append(args, "--port", strconv.Itoa(c.Port))
	case c.Port < 0:
		args = append(args, "--port", "0")
	}
	return args
}

// lastLine is the last line of the file at path ("" when unreadable).
func lastLine(path string) string {
	tail, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(tail)), "\n")
	return lines[len(lines)-1]
}

// IsNotRunning reports whether err means no daemon answers.
func IsNotRunning(err error) bool {
	var nr *notRunningError
	return errors.As(err, &nr)
}
