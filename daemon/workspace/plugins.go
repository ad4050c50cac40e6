package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/plugins"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/plugin"
)

// PluginDecl is one entry of "plugins" in vx.workspace.json: a string
// (the plugin) or an object with options, a timeout and a scope.
type PluginDecl struct {
	Plugin  string          `json:"plugin"`
	Options json.RawMessage `json:"options,omitempty"`
	Timeout string          `json:"timeout,omitempty"`
	// Include and Exclude limit the files and projects the plugin is
	// sent (plugins.Scope).
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// UnmarshalJSON accepts a plain string as shorthand for {"plugin": "..."}.
func (d *PluginDecl) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*d = PluginDecl{Plugin: s}
		return nil
	}
	const expected = `a string or {"plugin": string, "options": any, "timeout": duration, "include": [glob], "exclude": [glob]}`
	if len(b) == 0 || b[0] != '{' {
		return &entryError{raw: b, expected: expected}
	}
	type plain PluginDecl
	var p plain
	if err := decodeEntry(b, &p, expected); err != nil {
		return err
	}
	*d = PluginDecl(p)
	return nil
}

// validatePlugins refuses a declaration no plugin can answer to.
func (m *Model) validatePlugins() error {
	seen := map[string]bool{}
	for i, d := range m.Config.Plugins {
		at := fmt.Sprintf("plugins[%d]", i)
		if err := plugins.CheckSpec(d.Plugin); err != nil {
			return fieldError(m.ConfigPath, at, err)
		}
		if seen[d.Plugin] {
			return fieldError(m.ConfigPath, at, fmt.Errorf("plugin %q is declared twice", d.Plugin))
		}
		seen[d.Plugin] = true
		if err := m.validateScope(at, d); err != nil {
			return err
		}
		if d.Timeout != "" {
			t, err := parseTimeout(d.Timeout)
			if err == nil && t > plugin.MaxTimeoutSeconds*time.Second {
				err = fmt.Errorf("longer than %ds", plugin.MaxTimeoutSeconds)
			}
			if err != nil {
				return fieldError(m.ConfigPath, at+".timeout", err)
			}
		}
	}
	return nil
}

// validateScope refuses a declaration's include or exclude that is too
// long or holds a glob that is not workspace-relative; at is the
// declaration's path in the file.
func (m *Model) validateScope(at string, d PluginDecl) error {
	for _, l := range []struct {
		key   string
		globs []string
	}{{"include", d.Include}, {"exclude", d.Exclude}} {
		key, globs := l.key, l.globs
		if len(globs) > plugins.MaxScopeGlobs {
			return fieldError(m.ConfigPath, at+"."+key, fmt.Errorf("%d globs; at most %d", len(globs), plugins.MaxScopeGlobs))
		}
		for i, g := range globs {
			if err := plugins.CheckScopeGlob(g); err != nil {
				return fieldError(m.ConfigPath, fmt.Sprintf("%s.%s[%d]", at, key, i), err)
			}
		}
	}
	return nil
}

// TaskOrigin is where an inferred task came from.
type TaskOrigin struct {
	// Plugin is the plugin's name, or its declaration when another
	// declared plugin has the same name (two copies of one plugin).
	Plugin string `json:"plugin"`
	File   string `json:"file"` // workspace-relative
}

// taskRef names a project's task: one map of them holds every inferred
// task (a map for each project made thousands of small maps).
type taskRef struct{ project, task string }

// inferredTask is a plugin's task as the lowest layer of a definition.
type inferredTask struct {
	cfg    TaskConfig
	origin TaskOrigin
}

// PluginState is what a load learned of one declared plugin.
type PluginState struct {
	Spec     string           `json:"plugin"`
	Name     string           `json:"name,omitempty"`
	Version  string           `json:"version,omitempty"`
	Entry    string           `json:"entry,omitempty"` // workspace-relative
	Identity string           `json:"identity,omitempty"`
	Stages   []string         `json:"stages"`
	Commands []plugin.Command `json:"commands,omitempty"`
	Globs    []string         `json:"globs,omitempty"`
	// Include and Exclude are the declaration's scope (docs/plugins.md).
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Files   int      `json:"files"` // files its globs matched
	Tasks   int      `json:"tasks"` // tasks it contributed
	Error   string   `json:"error,omitempty"`
	// Stale: the plugin failed and its last good answers stand in.
	Stale bool `json:"stale,omitempty"`
	// Started counts the plugin processes this load started.
	Started int `json:"-"`

	decl    plugins.Decl
	entry   plugins.Entry
	matched []string
	failed  bool // the plugin was refused (Error says why)
}

// Plugins lists the declared plugins, in declaration order.
func (m *Model) Plugins() []PluginState { return m.plugins }

// Runnable answers the declaration and entry a command of the plugin runs
// with; ok is false when the plugin failed to load.
func (s *PluginState) Runnable() (plugins.Decl, plugins.Entry, bool) {
	return s.decl, s.entry, s.entry.Path != "" && s.Name != ""
}

// Inferred answers the origin of project's task when a plugin inferred it.
func (m *Model) Inferred(project, task string) (TaskOrigin, bool) {
	it, ok := m.inferred[taskRef{project, task}]
	return it.origin, ok
}

// taskLabel names a project's task in an error about its definition: its
// id, and the plugin and file it was inferred from, when it was (what to
// fix is then there). Made only when an error is.
type taskLabel struct {
	m             *Model
	project, task string
}

func (l taskLabel) String() string {
	id := TaskID(l.project, l.task)
	if o, ok := l.m.Inferred(l.project, l.task); ok {
		return fmt.Sprintf("%s (inferred by plugin %s from %s)", id, o.Plugin, o.File)
	}
	return id
}

// inferredNotes says, for an error naming the task ids, which of them
// were inferred and by what ("" when none was).
func (m *Model) inferredNotes(ids []string) string {
	var notes []string
	for _, id := range ids {
		if p, t, ok := SplitTaskID(id); ok {
			if o, ok := m.Inferred(p, t); ok {
				notes = append(notes, fmt.Sprintf("%s is inferred by plugin %s from %s", id, o.Plugin, o.File))
			}
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// failedPluginsHint is what an unknown task's error adds when a plugin
// failed to load: the task may be one of the tasks it would infer.
func (m *Model) failedPluginsHint() string {
	var failed []string
	for _, s := range m.plugins {
		if s.failed && !s.Stale {
			failed = append(failed, s.Spec)
		}
	}
	switch len(failed) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; plugin %s failed to load, so no task it infers is known (vx info says why)", failed[0])
	}
	return fmt.Sprintf("; plugins %s failed to load, so no task they infer is known (vx info says why)", strings.Join(failed, ", "))
}

// maxWarning bounds the line PluginWarnings gives of an error.
const maxWarning = 300

// Failed reports whether the plugin failed (its tasks are missing, or
// its last good answers stand in): what PluginWarnings warns of. A plugin
// that loaded with part of its answer refused has an Error, but did not.
func (s PluginState) Failed() bool {
	return s.Error != "" && (s.failed || s.Stale)
}

// PluginWarnings are a line for each plugin that failed, for the commands
// that use the model to say: its tasks are missing, or stale (the whole
// error, its stderr included, is vx info's). A plugin that loaded with
// part of its answer refused (a verb or task another plugin has) is for
// vx info alone to show.
func (m *Model) PluginWarnings() []string {
	var out []string
	for _, s := range m.plugins {
		if !s.Failed() {
			continue
		}
		line, _, cut := strings.Cut(s.Error, "\n")
		if len(line) > maxWarning {
			line, cut = strings.ToValidUTF8(line[:maxWarning], "")+"…", true
		}
		if s.Stale {
			line += "; its last good answers stand in"
		} else {
			line += "; its tasks and commands are left out"
		}
		if cut {
			line += " (vx info shows the whole error)"
		}
		out = append(out, line)
	}
	return out
}

// PluginMatches reports whether the workspace-relative file rel matches a
// plugin's globs and is in its scope: its change may change the inferred
// tasks.
func (m *Model) PluginMatches(rel string) bool {
	return len(m.PluginsMatching(rel)) > 0
}

// PluginsMatching names, as declared, the plugins whose globs match rel
// (workspace-relative) within their scope.
func (m *Model) PluginsMatching(rel string) []string {
	rel = filepath.ToSlash(rel)
	var out []string
	for _, s := range m.plugins {
		if len(plugins.Match(s.Globs, []string{rel})) > 0 && s.decl.Scope.Admits(rel) {
			out = append(out, s.Spec)
		}
	}
	return out
}

// inferOptions is how a load runs its plugins.
type inferOptions struct {
	keepLastGood bool
	listed       Listed
}

// Listed is what a run that lists the workspace's files anyway lends its
// load's plugins; a nil field lends nothing.
type Listed struct {
	// Files answers that listing (ok false: none was made), sparing the
	// plugins a listing of their own.
	Files func() ([]string, bool)
	// Stat lstats files of that listing (in its order), ok[i] false for
	// one that could not be: the run then spares its own stat of those
	// among its inputs.
	Stat func(files []string) (stats []hashing.Stat, ok []bool)
	// Hash, where vxd's change journal answers for the run, is the run's
	// content hash of a listed file (workspace-relative): the journal
	// proves most unchanged without a stat. It fails when no journal
	// answers.
	Hash func(rel string) (string, error)
}

// LoadReusingListed is LoadReusing for a run that lists the workspace's
// files anyway (listed).
func LoadReusingListed(root string, listed Listed) (*Model, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	ms := openManifests(root)
	m, err := load(root, ms, inferOptions{listed: listed})
	if err == nil {
		ms.save()
	}
	return m, err
}

// pluginLoad is a load's plugins under way: what each did before the
// projects were known (plugins.Begin), on goroutines of their own.
type pluginLoad struct {
	decls []plugins.Decl
	list  func() ([]string, error)
	seen  *plugins.Seen
	begun []*plugins.Begun
	wg    sync.WaitGroup
}

// beginInfer starts, for each declared plugin, the part of its warm load
// that needs no project (nil when none is declared): a fully cached run
// then reads the stored answers and stats the matched files while the
// projects' manifests load, rather than after.
func (m *Model) beginInfer(o inferOptions) *pluginLoad {
	if len(m.Config.Plugins) == 0 {
		return nil
	}
	var listed []string
	var listErr error
	var listOnce sync.Once
	pl := &pluginLoad{seen: &plugins.Seen{StatListed: o.listed.Stat, Sum: o.listed.Hash}, begun: make([]*plugins.Begun, len(m.Config.Plugins))}
	pl.list = func() ([]string, error) {
		listOnce.Do(func() {
			if o.listed.Files != nil {
				var ok bool
				if listed, ok = o.listed.Files(); ok {
					return
				}
			}
			listed, _, listErr = hashing.ListFilesCached(context.Background(), m.Root, layout.FileList(m.Root))
		})
		return listed, listErr
	}
	r := plugins.Runner{Root: m.Root}
	for i, d := range m.Config.Plugins {
		timeout, _ := parseTimeout(d.Timeout)
		decl := plugins.Decl{Spec: d.Plugin, Options: d.Options, Timeout: timeout, File: ConfigFile, Scope: plugins.Scope{Include: d.Include, Exclude: d.Exclude}}
		pl.decls = append(pl.decls, decl)
		pl.wg.Add(1)
		go func() {
			defer pl.wg.Done()
			pl.begun[i] = r.Begin(plugins.Input{Decl: decl, List: pl.list, Seen: pl.seen})
		}()
	}
	return pl
}

// wait waits for what beginInfer started (nil: nothing).
func (pl *pluginLoad) wait() {
	if pl != nil {
		pl.wg.Wait()
	}
}

// infer runs the declared plugins (or reuses their stored answers) and
// adds their tasks as the lowest layer of each definition, going on from
// what beginInfer did (pl). A plugin that fails is recorded in its
// PluginState; the load goes on without it.
func (m *Model) infer(o inferOptions, pl *pluginLoad) {
	if pl == nil {
		return
	}
	pl.wait()
	mask := secret.NewMasker(SecretValues(m.Root, m, environMap())...)
	r := plugins.Runner{Root: m.Root, Masker: mask}
	projects := make([]plugin.Project, 0, len(m.Projects))
	for _, p := range m.Projects {
		projects = append(projects, plugin.Project{Name: p.Name, Root: p.Dir, Scripts: plugin.Scripts(p.Scripts)})
	}
	// The plugins answer at once (each mostly stats its files or waits
	// for its process); their tasks join the model in declaration order.
	results := make([]plugins.Result, len(pl.decls))
	var wg sync.WaitGroup
	for i, decl := range pl.decls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.Infer(context.Background(), plugins.Input{Decl: decl, Projects: projects, List: pl.list, KeepLastGood: o.keepLastGood, Seen: pl.seen, Begun: pl.begun[i]})
		}()
	}
	wg.Wait()
	n := 0
	for _, res := range results {
		n += len(res.Tasks)
	}
	m.inferred = make(map[taskRef]inferredTask, n)
	if o.keepLastGood || asked(results) {
		// The declarations or the files changed (or vxd reloads): the
		// answers of plugins no longer declared go.
		specs := make([]string, len(pl.decls))
		for i, d := range pl.decls {
			specs[i] = d.Spec
		}
		plugins.Sweep(m.Root, specs)
	}
	shared := sharedNames(results)
	for _, res := range results {
		m.plugins = append(m.plugins, m.addInferred(res, shared))
	}
	m.Files = append(m.Files, pluginFiles(m.Root, results)...)
}

// pluginFiles are the files the plugins' answers were read from: each
// entry given as a path and the files its globs matched, absolute and
// once each. They join the model's Files: what a plan or a repeated run
// checks has not changed.
func pluginFiles(root string, results []plugins.Result) []string {
	n := 0
	for _, res := range results {
		n += len(res.Files) + 1
	}
	// Plugins often match the same files: each is joined to the root once.
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	add := func(key, p string) {
		if p != "" && !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	for _, res := range results {
		if res.Entry.Package == "" {
			// A package's entry is left out: node_modules is often a
			// link (pnpm), which no file of Files may be read through;
			// the lockfile changes when the package does.
			key := "\x00" + res.Entry.Path
			if rel, err := filepath.Rel(root, res.Entry.Path); err == nil && !strings.HasPrefix(rel, "..") {
				key = filepath.ToSlash(rel) // as a matched file is seen
			}
			add(key, res.Entry.Path)
		}
		for _, f := range res.Files {
			if !seen[f] {
				add(f, hashing.JoinSlash(root, f))
			}
		}
	}
	return out
}

// addInferred records res and adds its tasks, the first plugin to infer a
// task keeping it.
func (m *Model) addInferred(res plugins.Result, shared map[string]bool) PluginState {
	s := PluginState{Spec: res.Decl.Spec, Stages: []string{}, Stale: res.Stale, Started: res.Started, decl: res.Decl, entry: res.Entry, matched: res.Files, Files: len(res.Files),
		Include: res.Decl.Scope.Include, Exclude: res.Decl.Scope.Exclude}
	if res.Entry.Path != "" {
		if rel, err := filepath.Rel(m.Root, res.Entry.Path); err == nil {
			s.Entry = filepath.ToSlash(rel)
		}
		s.Identity = res.Entry.Identity
	}
	if res.Err != nil {
		s.Error, s.failed = res.Err.Error(), true
	}
	if d := res.Describe; d != nil {
		s.Name, s.Version, s.Stages, s.Globs = d.Name, d.Version, append(s.Stages, d.Stages...), d.Globs
		s.Commands = m.addCommands(&s, d.Commands)
	}
	origin := s.Name
	if shared[s.Name] {
		origin = s.Spec
	}
	var shadowed []string
	for _, t := range res.Tasks {
		ref := taskRef{t.Project, t.Name}
		if have, ok := m.inferred[ref]; ok {
			shadowed = append(shadowed, fmt.Sprintf("%s#%s (kept %s's)", t.Project, t.Name, have.origin.Plugin))
			continue
		}
		m.inferred[ref] = inferredTask{cfg: taskConfigOf(t), origin: TaskOrigin{Plugin: origin, File: t.File}}
		s.Tasks++
	}
	if res.Unstored != "" && s.Error == "" {
		s.Error = res.Unstored
	}
	if len(shadowed) > 0 && s.Error == "" {
		sort.Strings(shadowed)
		s.Error = "tasks another plugin declared first also infers: " + strings.Join(shadowed, ", ")
	}
	return s
}

// asked reports whether a plugin process was started for results.
func asked(results []plugins.Result) bool {
	for _, res := range results {
		if res.Started > 0 {
			return true
		}
	}
	return false
}

// sharedNames are the names two or more of the plugins answered with.
func sharedNames(results []plugins.Result) map[string]bool {
	seen, shared := map[string]bool{}, map[string]bool{}
	for _, res := range results {
		if d := res.Describe; d != nil {
			shared[d.Name] = seen[d.Name]
			seen[d.Name] = true
		}
	}
	return shared
}

func taskConfigOf(t plugin.Task) TaskConfig {
	return TaskConfig{Command: t.Command, DependsOn: t.DependsOn, Inputs: t.Inputs, Outputs: t.Outputs,
		Env: t.Env, PassEnv: t.PassEnv, Cache: t.Cache, Timeout: t.Timeout}
}

// environMap is this process's environment as a map, for the variables
// a secret declares without a value.
func environMap() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// LoadServing is Load for vxd, which serves the model for its life: a
// plugin that fails keeps its last good answers (marked Stale, with the
// failure kept) rather than losing its tasks until it is fixed.
func LoadServing(root string) (*Model, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	return load(root, nil, inferOptions{keepLastGood: true})
}

// addCommands answers the commands of a plugin vx adds as verbs: one
// named like a built-in verb, or like an earlier plugin's, is refused,
// and the refusal kept in s.Error.
func (m *Model) addCommands(s *PluginState, cmds []plugin.Command) []plugin.Command {
	var out []plugin.Command
	var refused []string
	for _, c := range cmds {
		owner := ""
		if slices.Contains(plugin.ReservedVerbs, c.Name) {
			owner = "vx's own verb"
		}
		for _, other := range m.plugins {
			for _, oc := range other.Commands {
				if oc.Name == c.Name {
					owner = "plugin " + other.Spec + "'s verb"
				}
			}
		}
		if owner != "" {
			refused = append(refused, fmt.Sprintf("command %q is %s, so it is not added", c.Name, owner))
			continue
		}
		out = append(out, c)
	}
	if len(refused) > 0 && s.Error == "" {
		s.Error = strings.Join(refused, "; ")
	}
	return out
}

// PluginCommand finds the plugin adding verb.
func (m *Model) PluginCommand(verb string) (*PluginState, plugin.Command, bool) {
	for i := range m.plugins {
		for _, c := range m.plugins[i].Commands {
			if c.Name == verb {
				return &m.plugins[i], c, true
			}
		}
	}
	return nil, plugin.Command{}, false
}
