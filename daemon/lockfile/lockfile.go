// Package lockfile keeps vx.lock: a reviewable record of every task's
// resolved definition (command, inputs, outputs, env names, dependsOn), and
// checks the current configuration against it.
package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
)

// Name is the lock file at the workspace root.
const Name = "vx.lock"

// lockVersion is the version of the lock format.
const lockVersion = 1

// lockedTask is one task's recorded definition.
type lockedTask struct {
	Command   string   `json:"command"`
	Inputs    []string `json:"inputs"`
	Outputs   []string `json:"outputs"`
	Env       []string `json:"env"`
	PassEnv   []string `json:"passEnv"`
	Secrets   []string `json:"secrets"`
	DependsOn []string `json:"dependsOn"`
	Cache     bool     `json:"cache"`
	Timeout   string   `json:"timeout,omitempty"`
}

// lock is the decoded vx.lock.
type lock struct {
	Version int                   `json:"version"`
	Tasks   map[string]lockedTask `json:"tasks"`
}

// generate records every task that runs a command, masked.
func generate(m *workspace.Model, mask *secret.Masker) *lock {
	l := &lock{Version: lockVersion, Tasks: map[string]lockedTask{}}
	add := func(project, name string) {
		def, ok := m.Resolve(project, name)
		if !ok || def.NoOp() {
			return
		}
		l.Tasks[workspace.TaskID(project, name)] = lockedTask{Command: mask.String(def.Command), Inputs: def.Inputs, Outputs: def.Outputs,
			Env: def.Env, PassEnv: def.PassEnv, Secrets: nonNil(def.Secrets()), DependsOn: def.DependsOn, Cache: def.Cache, Timeout: def.TimeoutText}
	}
	for _, p := range m.Projects {
		for _, name := range m.TaskNames() {
			add(p.Name, name)
		}
	}
	for _, name := range m.RootTasks() {
		add(workspace.RootProject, name)
	}
	return l
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Encode renders the lock with stable ordering (maps marshal sorted).
func (l *lock) Encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(l)
	return buf.Bytes()
}

// Write generates vx.lock and writes it atomically; it answers how many
// tasks were recorded and whether the file changed.
func Write(m *workspace.Model, mask *secret.Masker) (int, bool, error) {
	l := generate(m, mask)
	path := filepath.Join(m.Root, Name)
	b := l.Encode()
	old, _ := os.ReadFile(path)
	if bytes.Equal(old, b) {
		return len(l.Tasks), false, nil
	}
	return len(l.Tasks), true, hashing.WriteFileAtomic(path, b, 0o644)
}

// errMissing is returned by read when there is no vx.lock.
var errMissing = errors.New("no " + Name + " in the workspace: run `vx lock` to record the task definitions")

// read loads vx.lock; an invalid file is an error naming it and how to
// regenerate it.
func read(root string) (*lock, error) {
	path := filepath.Join(root, Name)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errMissing
	}
	if err != nil {
		return nil, err
	}
	var l lock
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s is not a valid lock file (%v): regenerate it with `vx lock` and review the diff", path, err)
	}
	if rest := bytes.TrimSpace(b[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("%s is not a valid lock file (text follows the lock object, as after a bad merge): regenerate it with `vx lock` and review the diff", path)
	}
	if l.Version != lockVersion {
		return nil, fmt.Errorf("%s has format version %d, this vx writes %d: regenerate it with `vx lock`", path, l.Version, lockVersion)
	}
	if l.Tasks == nil {
		return nil, fmt.Errorf("%s has no \"tasks\" object: regenerate it with `vx lock`", path)
	}
	return &l, nil
}

// Problem is one drift between the lock and the configuration.
type Problem struct {
	TaskID  string `json:"taskId"`
	Field   string `json:"field"` // a definition field, or "task" for an added/removed task
	Locked  string `json:"locked"`
	Current string `json:"current"`
}

// CheckResult answers `vx lock --check`.
type CheckResult struct {
	File       string    `json:"file"`
	Present    bool      `json:"present"`
	UpToDate   bool      `json:"upToDate"`
	Audited    []string  `json:"audited"`    // tasks whose definition matches the lock
	NotAudited []string  `json:"notAudited"` // tasks the lock does not record
	Problems   []Problem `json:"problems"`
	ExitCode   int       `json:"exitCode"`
	Note       string    `json:"note,omitempty"`
}

// Check compares the configuration with vx.lock.
func Check(m *workspace.Model, mask *secret.Masker) (*CheckResult, error) {
	res := &CheckResult{File: filepath.Join(m.Root, Name), Audited: []string{}, NotAudited: []string{}, Problems: []Problem{}}
	cur := generate(m, mask)
	locked, err := read(m.Root)
	if errors.Is(err, errMissing) {
		for id := range cur.Tasks {
			res.NotAudited = append(res.NotAudited, id)
		}
		sort.Strings(res.NotAudited)
		res.ExitCode = 1
		res.Note = errMissing.Error()
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	res.Present = true
	ids := map[string]bool{}
	for id := range cur.Tasks {
		ids[id] = true
	}
	for id := range locked.Tasks {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		c, inCur := cur.Tasks[id]
		l, inLock := locked.Tasks[id]
		switch {
		case !inLock:
			res.NotAudited = append(res.NotAudited, id)
			res.Problems = append(res.Problems, Problem{TaskID: id, Field: "task", Locked: "(absent)", Current: "defined"})
		case !inCur:
			res.Problems = append(res.Problems, Problem{TaskID: id, Field: "task", Locked: "defined", Current: "(absent)"})
		default:
			drift := diff(id, maskTask(l, mask), c)
			if len(drift) == 0 {
				res.Audited = append(res.Audited, id)
			}
			res.Problems = append(res.Problems, drift...)
		}
	}
	res.UpToDate = len(res.Problems) == 0
	if !res.UpToDate {
		res.ExitCode = 1
	}
	return res, nil
}

// maskTask masks what the lock recorded: a value that is secret now may
// have been written in clear before it was declared secret.
func maskTask(t lockedTask, mask *secret.Masker) lockedTask {
	t.Command = mask.String(t.Command)
	return t
}

func diff(id string, l, c lockedTask) []Problem {
	var out []Problem
	add := func(field, a, b string) {
		if a != b {
			out = append(out, Problem{TaskID: id, Field: field, Locked: a, Current: b})
		}
	}
	list := func(s []string) string { return strings.Join(s, ", ") }
	add("command", l.Command, c.Command)
	add("inputs", list(l.Inputs), list(c.Inputs))
	add("outputs", list(l.Outputs), list(c.Outputs))
	add("env", list(l.Env), list(c.Env))
	add("passEnv", list(l.PassEnv), list(c.PassEnv))
	add("secrets", list(l.Secrets), list(c.Secrets))
	add("dependsOn", list(l.DependsOn), list(c.DependsOn))
	add("cache", fmt.Sprint(l.Cache), fmt.Sprint(c.Cache))
	add("timeout", l.Timeout, c.Timeout)
	return out
}
