// Package ops implements every question vx answers — show, last, why,
// history, failures, plans, cache stats, prune, info — as one Go function
// each with typed input and output. The CLI verbs (and their --format
// json) and the daemon's MCP tools are thin adapters over these functions.
package ops

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Env is what operations read: the workspace model and its stores. The
// CLI makes one per command; the daemon keeps one warm and swaps the model
// when the configuration changes. Stores are opened read-only on first use
// and create nothing on disk.
type Env struct {
	Root    string
	Environ map[string]string
	Masker  *secret.Masker
	// VX is the vx executable runTasks and planTasks start ("" for the
	// CLI, which hands its own in the input).
	VX string
	// Daemon, inside vxd, is the daemon's own status (getWorkspaceInfo,
	// diagnose); nil elsewhere.
	Daemon func() *wire.Status

	mu      sync.Mutex
	model   *workspace.Model // the last model that loaded
	loadErr error            // the current configuration's load error, if any
	hist    *history.Store
	cache   *cache.Store
}

// NewEnv makes an Env over a loaded model (nil with err when it failed).
func NewEnv(root string, m *workspace.Model, loadErr error, environ []string) *Env {
	env := map[string]string{}
	if environ == nil {
		environ = os.Environ()
	}
	for _, kv := range environ {
		if i := strings.IndexByte(kv, '='); i > 0 {
			env[kv[:i]] = kv[i+1:]
		}
	}
	e := &Env{Root: root, model: m, loadErr: loadErr, Environ: env}
	// Without a model, the secrets the broken configuration declares are
	// still masked.
	e.Masker = secret.NewMasker(workspace.SecretValues(root, m, env)...)
	return e
}

// SetModel swaps in a newly loaded model (or records why it failed,
// keeping the last good one).
func (e *Env) SetModel(m *workspace.Model, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil && m != nil {
		e.model = m
		e.Masker.Add(workspace.SecretValues(e.Root, m, e.Environ)...)
	} else {
		e.Masker.Add(workspace.SecretValues(e.Root, nil, e.Environ)...)
	}
	e.loadErr = err
}

func (e *Env) vx(given string) string {
	if given != "" {
		return given
	}
	return e.VX
}

// LoadError is the current configuration's load error, if any.
func (e *Env) LoadError() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.loadErr
}

// CurrentModel returns the model to answer from.
func (e *Env) CurrentModel() (*workspace.Model, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.model == nil {
		if e.loadErr != nil {
			return nil, e.loadErr
		}
		return nil, errors.New("the workspace configuration has not loaded")
	}
	return e.model, nil
}

// History opens the run history read-only (once).
func (e *Env) History(ctx context.Context) (*history.Store, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.hist != nil {
		return e.hist, nil
	}
	h, err := history.OpenReadOnly(ctx, history.Path(e.Root), nil)
	if err != nil {
		return nil, err
	}
	e.hist = h
	return h, nil
}

// Cache opens the cache read-only (once).
func (e *Env) Cache() (*cache.Store, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cache != nil {
		return e.cache, nil
	}
	c, err := cache.Open(layout.Cache(e.Root), &cache.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	e.cache = c
	return c, nil
}

// Close releases the stores.
func (e *Env) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.hist != nil {
		e.hist.Close()
		e.hist = nil
	}
}

// resolveRun finds a run by whole id or unique prefix (a run id
// argument, which its schema holds to one that is not blank).
func resolveRun(ctx context.Context, h *history.Store, arg, id string) (*history.Run, error) {
	r, err := h.ResolveRun(ctx, id)
	if errors.Is(err, history.ErrNotFound) {
		return nil, opkit.Refuse(arg, "no run %q in this workspace's history (`vx last --list` shows run ids)", id)
	}
	var amb *history.AmbiguousError
	if errors.As(err, &amb) {
		return nil, opkit.Refuse(arg, "%s", amb.Error())
	}
	return r, err
}

// pickRun resolves a given run id (whole or prefix), or else the run
// latest picks; found is false when there is no such latest run.
func pickRun(ctx context.Context, h *history.Store, ref *opkit.RunID, latest func(context.Context) (*history.Run, error)) (run *history.Run, found bool, err error) {
	if runID, given := runRef(ref); given {
		run, err = resolveRun(ctx, h, "runId", runID)
		return run, err == nil, err
	}
	run, err = latest(ctx)
	if errors.Is(err, history.ErrNotFound) {
		return nil, false, nil
	}
	return run, err == nil, err
}

// taskExecution finds a task's execution in a given run, or its latest;
// the caller has validated id.
func (e *Env) taskExecution(ctx context.Context, id opkit.TaskID, ref *opkit.RunID) (*history.Store, *history.Execution, error) {
	taskID := string(id)
	h, err := e.History(ctx)
	if err != nil {
		return nil, nil, err
	}
	if runID, given := runRef(ref); given {
		r, err := resolveRun(ctx, h, "runId", runID)
		if err != nil {
			return nil, nil, err
		}
		ex, err := h.Execution(ctx, r.ID, taskID)
		if errors.Is(err, history.ErrNotFound) {
			return nil, nil, opkit.Refuse("taskId", "run %s did not record task %s", r.ID, taskID)
		}
		return h, ex, err
	}
	ex, err := h.LatestExecution(ctx, taskID)
	if errors.Is(err, history.ErrNotFound) {
		return nil, nil, opkit.Refuse("taskId", "no run recorded task %s%s", taskID, e.taskHint(taskID))
	}
	return h, ex, err
}

// environList is the Env's environment as KEY=VALUE entries.
func (e *Env) environList() []string {
	out := make([]string, 0, len(e.Environ))
	for k, v := range e.Environ {
		out = append(out, k+"="+v)
	}
	return out
}
