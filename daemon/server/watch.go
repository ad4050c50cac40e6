package server

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/plugins"
	"github.com/vzn/vx/daemon/workspace"
)

// debounce gathers a burst of file events (an editor's save, a branch
// switch) into one reload.
const debounce = 40 * time.Millisecond

// configNames are the files whose change reloads the model.
var configNames = map[string]bool{
	workspace.ConfigFile:  true,
	workspace.ProjectFile: true,
	"package.json":        true,
	"pnpm-workspace.yaml": true,
}

type watcher struct {
	w    *fsnotify.Watcher
	tail *tailer
	d    *daemon
	mu   sync.Mutex
	dirs map[string]bool
	held map[string]int // descriptors each watch holds, where they are counted
	// targets are where the model's files that are symbolic links point
	// (a plugin's matched file linked to a shared one): an edit there is
	// an edit of the file, in a directory watched for it alone.
	targets map[string]bool
	// plugins are the declared plugins' sources (their entries, the
	// modules beside a path plugin's, a package's package.json): an edit
	// there is an edit of the plugin. pluginDirs are the directories
	// watched for them alone, where a new directory is no new project.
	plugins    []plugins.Sources
	specs      []string // the declarations of plugins, in its order
	pluginDirs map[string]bool
	// globs are the project globs: a new hidden directory is a new
	// project only where one of them takes it (ProjectDirAllowed).
	globs []string
	self  selfEdits // loop's alone
}

func (w *watcher) Close() error { return w.w.Close() }

// watch follows the workspace's configuration files: the root, every
// project directory, and the parents of project globs (for new projects).
func (d *daemon) watch(ctx context.Context) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{w: fw, d: d, dirs: map[string]bool{}, held: map[string]int{}}
	if t, err := d.tailEvents(fw); err == nil {
		w.tail = t
	} else {
		d.log.Warn().Err(err).Msg("following shell runs' events failed")
	}
	w.sync()
	go w.loop(ctx)
	return w, nil
}

// sync adds watches for the current model's directories.
func (w *watcher) sync() {
	want := []string{w.d.root}
	var targets map[string]bool
	var srcs []plugins.Sources
	var specs []string
	pluginDirs := map[string]bool{}
	var globs []string
	if m, err := w.d.env.CurrentModel(); err == nil {
		want = append(want, m.ProjectDirs...)
		globs = projectGlobs(m)
		for _, g := range globs {
			want = append(want, globParents(w.d.root, g)...)
		}
		targets = linkTargets(w.d.root, m.Files)
		for t := range targets {
			want = append(want, filepath.Dir(t))
		}
		srcs, specs = pluginSources(w.d.root, m, want, pluginDirs)
		for dir := range pluginDirs {
			want = append(want, dir)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.targets, w.globs = targets, globs
	w.plugins, w.specs, w.pluginDirs = srcs, specs, pluginDirs
	for _, dir := range want {
		if w.dirs[dir] {
			continue
		}
		cost, err := w.d.reserveWatch(dir)
		if err != nil {
			w.d.log.Warn().Err(err).Str("dir", dir).Msg("not watching a configuration directory: its edits need a restart")
			continue
		}
		if err := w.w.Add(dir); err == nil {
			w.dirs[dir] = true
			w.held[dir] = cost
		} else {
			w.d.budget.Give(cost)
		}
	}
}

// pluginSources lists the sources of m's declared plugins and their
// declarations, and adds to only the directories that hold them and are
// not in other.
func pluginSources(root string, m *workspace.Model, other []string, only map[string]bool) ([]plugins.Sources, []string) {
	out := make([]plugins.Sources, 0, len(m.Config.Plugins))
	specs := make([]string, 0, len(m.Config.Plugins))
	for _, d := range m.Config.Plugins {
		src := plugins.IdentitySources(root, d.Plugin)
		for _, dir := range src.Dirs {
			only[dir] = !slices.Contains(other, dir)
		}
		out, specs = append(out, src), append(specs, d.Plugin)
	}
	for dir, ok := range only {
		if !ok {
			delete(only, dir)
		}
	}
	return out, specs
}

// pluginSource names the declared plugin path is one of the sources of
// ("" none): its change changes the plugin.
func (w *watcher) pluginSource(path string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, s := range w.plugins {
		if s.Counts(path) {
			return w.specs[i]
		}
	}
	return ""
}

// linkTargets maps where each of files (absolute) that is a symbolic
// link resolves to, when that is in the workspace under root (or under
// where root itself resolves to).
func linkTargets(root string, files []string) map[string]bool {
	out := map[string]bool{}
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	for _, f := range files {
		if st, err := os.Lstat(f); err != nil || st.Mode()&os.ModeSymlink == 0 {
			continue
		}
		t, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		for _, r := range roots {
			if _, in := hashing.RelSlash(r, t); in {
				out[t] = true
			}
		}
	}
	return out
}

// isLinkTarget reports whether path is where one of the model's linked
// files points.
func (w *watcher) isLinkTarget(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.targets[path]
}

func projectGlobs(m *workspace.Model) []string {
	if len(m.Config.Projects) > 0 {
		return m.Config.Projects
	}
	var out []string
	for _, p := range m.Projects {
		out = append(out, filepath.ToSlash(filepath.Dir(p.Dir))+"/*")
	}
	return out
}

// globParents lists the existing directories that a project glob's
// wildcard segment lives in ("packages/*" → packages), and for a "**"
// glob every directory below that one the glob may take a project in
// (a hidden one only where a segment of the glob starts with ".").
func globParents(root, glob string) []string {
	glob, _ = workspace.ProjectGlob(glob)
	segs := strings.Split(glob, "/")
	var static []string
	for _, s := range segs {
		if strings.ContainsAny(s, "*?[{") {
			break
		}
		static = append(static, s)
	}
	base := filepath.Join(append([]string{root}, static...)...)
	out := []string{}
	if st, err := os.Stat(base); err == nil && st.IsDir() {
		out = append(out, base)
		if strings.Contains(glob, "**") {
			_ = filepath.WalkDir(base, func(p string, de os.DirEntry, err error) error {
				if err != nil || !de.IsDir() {
					return nil
				}
				rel, _ := filepath.Rel(root, p)
				if !workspace.ProjectDirAllowed(glob, filepath.ToSlash(rel)) {
					return filepath.SkipDir
				}
				out = append(out, p)
				return nil
			})
		}
	}
	return out
}

func (w *watcher) relevant(ev fsnotify.Event) bool {
	name := filepath.Base(ev.Name)
	if configNames[name] {
		return true
	}
	if ev.Name == w.d.root {
		return true
	}
	if w.pluginFile(ev.Name) || w.isLinkTarget(ev.Name) || w.pluginSource(ev.Name) != "" {
		return true
	}
	// A new directory under a watched glob parent may be a new project.
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.mu.Lock()
		parentWatched := w.dirs[filepath.Dir(ev.Name)] && filepath.Dir(ev.Name) != w.d.root && !w.pluginDirs[filepath.Dir(ev.Name)]
		w.mu.Unlock()
		if parentWatched && name != "node_modules" && name != "dist" && w.takesHidden(ev.Name) {
			if st, err := os.Stat(ev.Name); err == nil && st.IsDir() || err != nil && w.isProjectDir(ev.Name) {
				return true
			}
		}
	}
	return false
}

// takesHidden says whether dir may be a project as far as its hidden
// name goes: a name without a leading "." always, a hidden one when a
// project glob takes it (ProjectDirAllowed), as the load would.
func (w *watcher) takesHidden(dir string) bool {
	if !strings.HasPrefix(filepath.Base(dir), ".") {
		return true
	}
	rel, err := filepath.Rel(w.d.root, dir)
	if err != nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, g := range w.globs {
		if pat, neg := workspace.ProjectGlob(g); !neg && mayHold(pat, filepath.ToSlash(rel)) && workspace.ProjectDirAllowed(pat, filepath.ToSlash(rel)) {
			return true
		}
	}
	return false
}

// mayHold says whether the project glob pat may match dir or a directory
// below it: each of dir's segments matches pat's, up to a "**".
func mayHold(pat, dir string) bool {
	segs := strings.Split(pat, "/")
	for i, d := range strings.Split(dir, "/") {
		if i >= len(segs) {
			return false
		}
		if segs[i] == "**" {
			return true
		}
		if ok, err := doublestar.Match(segs[i], d); err != nil || !ok {
			return false
		}
	}
	return true
}

func (w *watcher) isProjectDir(dir string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dirs[dir]
}

func (w *watcher) loop(ctx context.Context) {
	var timer *time.Timer
	var fire <-chan time.Time
	trigger := ""
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				// inotify drops the watch of a removed directory; forget it
				// so the next sync watches it again if it comes back.
				w.mu.Lock()
				if w.dirs[ev.Name] {
					delete(w.dirs, ev.Name)
					_ = w.w.Remove(ev.Name)
					w.d.budget.Give(w.held[ev.Name])
					delete(w.held, ev.Name)
				}
				w.mu.Unlock()
			}
			if w.tail != nil && filepath.Dir(ev.Name) == w.tail.dir {
				w.tail.handle(ev)
				continue
			}
			if !w.relevant(ev) || !w.admit(ev.Name) {
				continue
			}
			rel, _ := filepath.Rel(w.d.root, ev.Name)
			trigger = rel
			if timer == nil {
				timer = time.NewTimer(debounce)
			} else {
				timer.Reset(debounce)
			}
			fire = timer.C
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			w.d.log.Warn().Err(err).Msg("file watch")
		case <-fire:
			fire = nil
			if w.workspaceGone() {
				w.d.log.Info().Msg("workspace deleted: stopping")
				w.d.cancel()
				return
			}
			start := time.Now()
			w.d.reload(trigger)
			w.sync()
			w.reloaded(start, time.Now())
		}
	}
}

// admit reports whether a relevant edit of path reloads: not an edit of
// a plugin's own source, or of a file its globs match, made while the
// last reload asked it, once such edits are held (see selfEdits).
func (w *watcher) admit(path string) bool {
	for _, spec := range w.pluginsOf(path) {
		if w.self.during(spec, path) {
			return w.self.admit(spec, path)
		}
	}
	return w.self.admit("", path)
}

// pluginsOf names the declared plugins path is a source of, or a file
// the globs of (within the plugin's scope).
func (w *watcher) pluginsOf(path string) []string {
	var out []string
	if spec := w.pluginSource(path); spec != "" {
		out = append(out, spec)
	}
	m, err := w.d.env.CurrentModel()
	rel, relErr := filepath.Rel(w.d.root, path)
	if err != nil || relErr != nil {
		return out
	}
	return append(out, m.PluginsMatching(rel)...)
}

// reloaded records a reload from start to end, and says in vxd's status
// and log when a plugin's edits of itself stop reloading, or may again.
func (w *watcher) reloaded(start, end time.Time) {
	asked := map[string]bool{}
	if m, err := w.d.env.CurrentModel(); err == nil {
		for _, p := range m.Plugins() {
			asked[p.Spec] = p.Started > 0
		}
	}
	held, released := w.self.reloaded(start, end, asked)
	switch {
	case held:
		rel := ""
		if w.self.file != "" {
			rel, _ = filepath.Rel(w.d.root, w.self.file)
		}
		note := selfEditNote(w.self.spec, rel)
		w.d.log.Warn().Str("plugin", w.self.spec).Str("file", rel).Msg(note)
		w.d.setPluginEditsIgnored(note)
	case released:
		w.d.setPluginEditsIgnored("")
	}
}

func (w *watcher) workspaceGone() bool {
	if _, err := os.Stat(w.d.root); err != nil {
		return true
	}
	_, err := os.Stat(filepath.Join(w.d.root, workspace.ConfigFile))
	return os.IsNotExist(err)
}

// pluginFile reports whether a plugin's globs match path: its change may
// change the tasks the plugin infers.
func (w *watcher) pluginFile(path string) bool {
	m, err := w.d.env.CurrentModel()
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(w.d.root, path)
	return err == nil && m.PluginMatches(rel)
}
