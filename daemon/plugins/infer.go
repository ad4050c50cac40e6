package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vzn/vx/protocol/plugin"
)

// Input is what one plugin's inference needs from the workspace.
type Input struct {
	Decl     Decl
	Projects []plugin.Project
	// List answers the workspace's files (workspace-relative, slash
	// separated); it is called only when the plugin offers tasks.
	List func() ([]string, error)
	// KeepLastGood answers the last good answers, marked Stale, when the
	// plugin fails now (vxd does; a one-shot vx does not).
	KeepLastGood bool
}

// Result is one plugin's inference.
type Result struct {
	Decl     Decl
	Entry    Entry
	Describe *plugin.Describe // nil when describe failed
	Tasks    []plugin.Task
	Files    []string // the files its globs matched
	Err      error    // why the plugin was refused (masked)
	Stale    bool     // Describe and Tasks are the last good answers, not current
	Started  int      // plugin processes started
}

// Infer resolves in.Decl, asks describe and tasks (each only when its
// stored answer's key no longer holds) and stores what is new.
func (r Runner) Infer(ctx context.Context, in Input) Result {
	res := Result{Decl: in.Decl}
	prev := loadStored(r.Root, in.Decl.Spec)
	fail := func(err error) Result {
		res.Err = err
		if in.KeepLastGood && prev != nil && prev.tasksHold(in.Projects) {
			res.Describe, res.Tasks, res.Files, res.Stale = prev.Describe, prev.Tasks, prev.paths(), true
		} else {
			res.Describe, res.Tasks, res.Files = nil, nil, nil
		}
		return res
	}
	e, err := resolve(r.Root, in.Decl)
	if err != nil {
		return fail(err)
	}
	res.Entry = e
	opts := string(in.Decl.Options)
	cur := &stored{Spec: in.Decl.Spec, Identity: e.Identity, At: time.Now().UTC()}
	cur.DescribeKey = key("describe", e.Identity, opts, in.Decl.timeout().String())
	if prev != nil && prev.DescribeKey == cur.DescribeKey {
		cur.Describe = prev.Describe
	} else if cur.Describe, err = r.describe(ctx, in.Decl, e, &res); err != nil {
		return fail(err)
	}
	res.Describe = cur.Describe
	if offers(cur.Describe, plugin.OffersTasks) {
		if err := r.tasks(ctx, in, e, prev, cur, &res); err != nil {
			return fail(err)
		}
	}
	if prev == nil || prev.DescribeKey != cur.DescribeKey || prev.TasksKey != cur.TasksKey || cur.rehashed > 0 {
		_ = cur.save(r.Root) // a store that cannot be written costs the next load a request
	}
	return res
}

// describe asks the describe stage.
func (r Runner) describe(ctx context.Context, d Decl, e Entry, res *Result) (*plugin.Describe, error) {
	res.Started++
	b, stderr, err := r.Call(ctx, d, e, plugin.Request{Stage: plugin.StageDescribe})
	if err != nil {
		return nil, err
	}
	var a plugin.Describe
	if err := r.decodeAnswer(b, &a); err == nil {
		err = checkDescribe(&a)
	}
	if err != nil {
		return nil, &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask("describe: " + err.Error()), Stderr: stderr}
	}
	// What is shown of it (vx info, vx help, MCP tools) is masked.
	a.Version = r.mask(a.Version)
	for i, c := range a.Commands {
		a.Commands[i].Summary = r.mask(c.Summary)
		if len(c.InputSchema) > 0 {
			a.Commands[i].InputSchema = r.maskJSON(c.InputSchema)
		}
	}
	return &a, nil
}

// tasks matches the globs, and asks the tasks stage unless the stored
// answer was given for the same files, contents and projects.
func (r Runner) tasks(ctx context.Context, in Input, e Entry, prev, cur *stored, res *Result) error {
	d := in.Decl
	all, err := in.List()
	if err != nil {
		return &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask("listing the workspace's files: " + err.Error())}
	}
	files := Match(cur.Describe.Globs, all)
	if len(files) > plugin.MaxFiles {
		return &pluginError{Plugin: d.Spec, File: d.File, Reason: fmt.Sprintf("its globs match %d files; at most %d", len(files), plugin.MaxFiles)}
	}
	parts := []string{"tasks", cur.DescribeKey}
	for _, p := range in.Projects {
		parts = append(parts, p.Name, p.Root)
	}
	known := map[string]fileRec{}
	var at time.Time
	if prev != nil {
		at = prev.At
		for _, rec := range prev.Files {
			known[rec.Path] = rec
		}
	}
	for _, f := range files {
		old, ok := known[f]
		rec, err := r.fileRec(f, old, ok, at)
		if !ok || rec.Stamp != old.Stamp || !old.trusted(rec.Stamp, at) {
			cur.rehashed++
		}
		if err != nil {
			return &pluginError{Plugin: d.Spec, File: f, Reason: r.mask("reading a matched file: " + err.Error())}
		}
		cur.Files = append(cur.Files, rec)
		parts = append(parts, f, rec.Hash)
	}
	cur.TasksKey, res.Files = key(parts...), files
	fileSet, roots := setOf(files), projectRoots(in.Projects)
	if prev != nil && prev.TasksKey == cur.TasksKey {
		if _, err := checkTasks(prev.Tasks, fileSet, roots); err == nil {
			cur.Tasks, res.Tasks = prev.Tasks, prev.Tasks
			return nil
		}
		prev.TasksKey = "" // edited by hand: asked again, and stored
	}
	res.Started++
	b, stderr, err := r.Call(ctx, d, e, plugin.Request{Stage: plugin.StageTasks, Files: nonNil(files), Projects: nonNilProjects(in.Projects)})
	if err != nil {
		return err
	}
	var a plugin.TasksAnswer
	if err := r.decodeAnswer(b, &a); err != nil {
		return &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask("tasks: " + err.Error()), Stderr: stderr}
	}
	if bad, err := checkTasks(a.Tasks, fileSet, roots); err != nil {
		if bad == "" {
			bad = d.File
		}
		return &pluginError{Plugin: d.Spec, File: bad, Reason: r.mask("tasks: " + err.Error()), Stderr: stderr}
	}
	cur.Tasks, res.Tasks = a.Tasks, a.Tasks
	return nil
}

// tasksHold reports whether s's tasks pass a tasks answer's checks
// against the files it was given and the projects now (the file may have
// been edited, the projects changed).
func (s *stored) tasksHold(projects []plugin.Project) bool {
	_, err := checkTasks(s.Tasks, setOf(s.paths()), projectRoots(projects))
	return err == nil
}

func setOf(files []string) map[string]bool {
	out := make(map[string]bool, len(files))
	for _, f := range files {
		out[f] = true
	}
	return out
}

// projectRoots maps each project's name to its root.
func projectRoots(projects []plugin.Project) map[string]string {
	out := make(map[string]string, len(projects))
	for _, p := range projects {
		out[p.Name] = p.Root
	}
	return out
}

// Match lists the files matching any of globs, skipping node_modules,
// .git and .vx.
func Match(globs, files []string) []string {
	// "**/NAME" (NAME without a slash) matches a file whose base name
	// NAME matches: the common form, matched on the short base name.
	base := make([]string, len(globs))
	for i, g := range globs {
		if rest, ok := strings.CutPrefix(g, "**/"); ok && !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
			base[i] = rest
		}
	}
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f, ".vx/") || strings.HasPrefix(f, ".git/") || strings.Contains("/"+f, "/node_modules/") {
			continue
		}
		for i, g := range globs {
			var ok bool
			if base[i] != "" {
				ok, _ = doublestar.Match(base[i], path.Base(f))
			} else {
				ok, _ = doublestar.Match(g, f)
			}
			if ok {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilProjects(s []plugin.Project) []plugin.Project {
	if s == nil {
		return []plugin.Project{}
	}
	return s
}

// optionsJSON is the JSON a declaration's options are sent as ({} when none).
func optionsJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// fileRec hashes the matched file f, or takes the hash of old, its
// record in the answer stored at at (known: there is one), when it stats
// as it did then.
func (r Runner) fileRec(f string, old fileRec, known bool, at time.Time) (fileRec, error) {
	abs := filepath.Join(r.Root, filepath.FromSlash(f))
	st := stampOf(abs)
	if known && old.trusted(st, at) {
		return fileRec{Path: f, Hash: old.Hash, Stamp: st}, nil
	}
	h := sha256.New()
	if err := hashFile(abs, h); err != nil {
		return fileRec{}, err
	}
	return fileRec{Path: f, Hash: hex.EncodeToString(h.Sum(nil)), Stamp: st}, nil
}
