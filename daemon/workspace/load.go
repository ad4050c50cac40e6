package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// ErrNoWorkspace is returned when no ancestor of a directory holds vx.workspace.json.
var ErrNoWorkspace = errors.New("not inside a vx workspace: no " + ConfigFile + " in this directory or any parent (run `vx init` to create one)")

// FindRoot returns the nearest ancestor of dir (dir included) holding vx.workspace.json.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil && !st.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoWorkspace
		}
		dir = parent
	}
}

// Project is one package of the workspace.
type Project struct {
	Name       string                `json:"name"`
	Dir        string                `json:"dir"` // relative to the root, slash-separated
	Tags       []string              `json:"tags"`
	Deps       []string              `json:"dependsOn"` // project names, sorted
	Scripts    Scripts               `json:"-"`
	Version    string                `json:"-"`
	Overrides  map[string]TaskConfig `json:"-"`
	ConfigFile string                `json:"configFile,omitempty"` // vx.project.json when present
	Dependents []string              `json:"-"`
}

// Model is a loaded workspace: configuration, projects and their relations.
type Model struct {
	Root        string
	ConfigPath  string
	Config      Config
	Projects    []*Project // sorted by name
	byName      map[string]*Project
	RootScripts Scripts
	RootName    string
	Files       []string // every config file the model was read from, absolute
	ProjectDirs []string // absolute
	LoadedAt    time.Time

	dirsOnce   sync.Once
	byDir      map[string]*Project
	scopedOnce sync.Once // scopedTasks
	scoped     bool
	namesOnce  sync.Once
	taskNames  []string
	taskSet    map[string]bool

	overlapOnce sync.Once // OutputOverlaps (overlap.go)
	overlaps    []OutputOverlap

	inferred map[taskRef]inferredTask // plugins.go
	plugins  []PluginState
}

// Project returns the project named name.
func (m *Model) Project(name string) (*Project, bool) {
	p, ok := m.byName[name]
	return p, ok
}

type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Scripts              map[string]string `json:"scripts"`
	Workspaces           json.RawMessage   `json:"workspaces"`
	Dependencies         map[string]string `json:"dependencies"`
	DevDependencies      map[string]string `json:"devDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

func (p *packageJSON) workspaceGlobs() []string {
	if len(p.Workspaces) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(p.Workspaces, &list) == nil {
		return list
	}
	var obj struct {
		Packages []string `json:"packages"`
	}
	if json.Unmarshal(p.Workspaces, &obj) == nil {
		return obj.Packages
	}
	return nil
}

func readPackageJSON(path string) (*packageJSON, error) { return readPackageJSONAt(path, nil) }

// readPackageJSONVia is readPackageJSONAt answered from the saved
// decodings ms when they hold the file as it stats (ms nil: not).
func readPackageJSONVia(path string, stamp *fileStamp, ms *manifestStore) (*packageJSON, error) {
	if ms == nil {
		return readPackageJSONAt(path, stamp)
	}
	var st fileStamp
	if stamp != nil {
		st = *stamp
	} else {
		var err error
		if st, err = stampOf(path); err != nil {
			return nil, err
		}
	}
	if p, ok := ms.get(path, st); ok {
		return p, nil
	}
	p, err := readPackageJSONAt(path, &st)
	if err == nil {
		ms.put(path, st, p)
	}
	return p, err
}

// readPackageJSONAt is readPackageJSON with the file's stamp when the
// caller just took it (nil: stat it).
func readPackageJSONAt(path string, stamp *fileStamp) (*packageJSON, error) {
	return readCachedAt(path, stamp, func(b []byte) (*packageJSON, error) {
		var p packageJSON
		if err := decodeJSONC(path, b, &p, false); err != nil {
			return nil, err
		}
		return &p, nil
	})
}

// Load reads the workspace rooted at root. Any configuration file that
// fails to parse fails the load with its file, line and column.
func Load(root string) (*Model, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	return load(root, nil, inferOptions{})
}

// LoadReusing is Load for a short-lived process: where the workspace has
// a .vx/ directory, it reuses the decodings of package.json files saved
// there by an earlier load when they stat the same (manifests.go), and
// saves what it decoded anew.
func LoadReusing(root string) (*Model, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	ms := openManifests(root)
	m, err := load(root, ms, inferOptions{})
	if err == nil {
		ms.save()
	}
	return m, err
}

func load(root string, ms *manifestStore, io inferOptions) (*Model, error) {
	m := &Model{Root: root, ConfigPath: filepath.Join(root, ConfigFile), byName: map[string]*Project{}, LoadedAt: time.Now()}
	src, err := os.ReadFile(m.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("reading workspace config: %w", err)
	}
	if err := decodeJSONC(m.ConfigPath, src, &m.Config, true); err != nil {
		return nil, err
	}
	m.Files = append(m.Files, m.ConfigPath)
	if err := m.validateConfig(); err != nil {
		return nil, err
	}
	// The plugins' part that needs no project goes on meanwhile.
	pl := m.beginInfer(io)
	if err := m.loadAllProjects(ms); err != nil {
		pl.wait()
		return nil, err
	}
	m.infer(io, pl)
	return m, nil
}

// loadAllProjects finds, reads and links the workspace's projects.
func (m *Model) loadAllProjects(ms *manifestStore) error {
	globs, err := m.projectGlobs(ms)
	if err != nil {
		return err
	}
	dirs, stamps, err := expandProjectGlobs(m.Root, globs)
	if err != nil {
		return err
	}
	versions, err := m.addProjects(dirs, stamps, ms)
	if err != nil {
		return err
	}
	if err := m.linkDeps(versions); err != nil {
		return err
	}
	return m.checkProjectCycles()
}

// projectGlobs returns the globs naming the workspace's projects: the
// config's, else the root package.json's workspaces, else
// pnpm-workspace.yaml's packages. It records the root package.json's name
// and scripts and every file it read.
func (m *Model) projectGlobs(ms *manifestStore) ([]string, error) {
	root := m.Root
	globs := m.Config.Projects
	rootPkgPath := filepath.Join(root, "package.json")
	if rp, err := readPackageJSONVia(rootPkgPath, nil, ms); err == nil {
		m.Files = append(m.Files, rootPkgPath)
		m.RootScripts = scriptsOf(rp.Scripts)
		m.RootName = strings.Clone(rp.Name)
		if len(globs) == 0 {
			globs = rp.workspaceGlobs()
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if len(globs) == 0 {
		pnpm := filepath.Join(root, "pnpm-workspace.yaml")
		if b, err := os.ReadFile(pnpm); err == nil {
			m.Files = append(m.Files, pnpm)
			globs = parsePnpmPackages(b)
		}
	}
	return globs, nil
}

// loadedProject is one project directory's result from loadProjects.
type loadedProject struct {
	p     *Project
	pkg   *packageJSON
	files []string
	err   error
}

// loadProjects loads the project in each of dirs, in parallel: a reload
// of a large workspace is mostly reading manifests. Results are in the
// order of dirs.
func (m *Model) loadProjects(dirs []string, stamps map[string]fileStamp, ms *manifestStore) []loadedProject {
	// A few workers take the next directory from a shared counter (a
	// goroutine per project cost the runtime a wake-up each).
	results := make([]loadedProject, len(dirs))
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < min(max(2, runtime.NumCPU()), len(dirs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(dirs); i = int(next.Add(1) - 1) {
				r := &results[i]
				r.p, r.pkg, r.files, r.err = m.loadProject(dirs[i], stamps, ms)
			}
		}()
	}
	wg.Wait()
	return results
}

// addProjects loads the projects in dirs and adds them to m, sorted by
// name, refusing two of one name. It returns each project's package.json
// by project name.
func (m *Model) addProjects(dirs []string, stamps map[string]fileStamp, ms *manifestStore) (map[string]*packageJSON, error) {
	results := m.loadProjects(dirs, stamps, ms)
	versions := map[string]*packageJSON{}
	for i, dir := range dirs {
		p, pkg, err := results[i].p, results[i].pkg, results[i].err
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, results[i].files...)
		if strings.HasPrefix(p.Name, "!") {
			return nil, fmt.Errorf("the project in %s is named %q: a name may not start with \"!\", which in dependsOn and --filter leaves a project out; give it another name in package.json or vx.project.json", p.Dir, p.Name)
		}
		if other, dup := m.byName[p.Name]; dup {
			return nil, fmt.Errorf("two projects are named %q: %s and %s; give one a different package.json name", p.Name, other.Dir, p.Dir)
		}
		m.byName[p.Name] = p
		m.Projects = append(m.Projects, p)
		m.ProjectDirs = append(m.ProjectDirs, filepath.Join(m.Root, filepath.FromSlash(dir)))
		versions[p.Name] = pkg
	}
	sort.Slice(m.Projects, func(i, j int) bool { return m.Projects[i].Name < m.Projects[j].Name })
	return versions, nil
}

// linkDeps sets each project's dependencies (workspace references in its
// package.json plus explicit ones, less those named "!name", refusing
// unknown names) and dependents.
func (m *Model) linkDeps(versions map[string]*packageJSON) error {
	for _, p := range m.Projects {
		set := map[string]bool{}
		if pkg := versions[p.Name]; pkg != nil {
			for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies, pkg.PeerDependencies, pkg.OptionalDependencies} {
				for name := range deps {
					if dp := m.byName[name]; name != p.Name && dp != nil {
						set[dp.Name] = true // its own copy, not the manifest's
					}
				}
			}
		}
		explicit, err := m.explicitDeps(p)
		if err != nil {
			return err
		}
		for name, keep := range explicit {
			set[name] = keep
		}
		p.Deps = trueKeys(set)
	}
	for _, p := range m.Projects {
		for _, d := range p.Deps {
			dp := m.byName[d]
			dp.Dependents = append(dp.Dependents, p.Name)
		}
	}
	return nil
}

// explicitDeps maps each project p's dependsOn names to true, or to
// false when it drops it ("!name"); it refuses a name that is no project
// and one both named and dropped, which would otherwise mean what the
// later entry said.
func (m *Model) explicitDeps(p *Project) (map[string]bool, error) {
	out := make(map[string]bool, len(p.Deps))
	for _, ref := range p.Deps {
		name, drop := strings.CutPrefix(ref, "!")
		if m.byName[name] == nil {
			return nil, fmt.Errorf("%s: dependsOn names project %q, which is not in the workspace%s", p.ConfigFile, ref, closeHint(name, m.projectNames()))
		}
		if keep, ok := out[name]; ok && keep == drop {
			return nil, fmt.Errorf("%s: dependsOn holds both %q and \"!%s\": keep the one you mean", p.ConfigFile, name, name)
		}
		out[name] = !drop
	}
	return out, nil
}

// trueKeys is the sorted keys of set whose value is true.
func trueKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k, v := range set {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (m *Model) validateConfig() error {
	tasks, err := configPaths(m.ConfigPath, m.Config.Tasks)
	if err != nil {
		return err
	}
	m.Config.Tasks = tasks
	if m.Config.Projects, err = pathGlobs(m.ConfigPath, "projects", m.Config.Projects, projectsHint); err != nil {
		return err
	}
	if m.Config.GlobalInputs, err = pathGlobs(m.ConfigPath, "globalInputs", m.Config.GlobalInputs, rootHint); err != nil {
		return err
	}
	for name, tc := range m.Config.Tasks {
		if name == "" || strings.HasPrefix(name, "#") || strings.HasSuffix(name, "#") {
			return &FileError{File: m.ConfigPath, Msg: fmt.Sprintf("tasks: %q is not a task name (use \"build\", \"web#build\" or \"//#lint\")", name)}
		}
		if tc.Timeout != nil {
			if _, err := parseTimeout(*tc.Timeout); err != nil {
				return fieldError(m.ConfigPath, "tasks."+name+".timeout", err)
			}
		}
		if err := tc.Sandbox.validate("tasks." + name + ".sandbox"); err != nil {
			return &FileError{File: m.ConfigPath, Msg: err.Error()}
		}
	}
	if err := m.Config.Sandbox.validate("sandbox"); err != nil {
		return &FileError{File: m.ConfigPath, Msg: err.Error()}
	}
	if err := m.Config.MCP.validate(m.ConfigPath); err != nil {
		return err
	}
	if m.Config.Workers < 0 {
		return &FileError{File: m.ConfigPath, Msg: fmt.Sprintf("workers: %d is not a worker count (use a positive number, or leave it out for one per CPU)", m.Config.Workers)}
	}
	if err := m.Config.RemoteCache.validate(); err != nil {
		return &FileError{File: m.ConfigPath, Msg: err.Error()}
	}
	if err := m.Config.Daemon.validate(); err != nil {
		return &FileError{File: m.ConfigPath, Msg: err.Error()}
	}
	if err := m.validatePlugins(); err != nil {
		return err
	}
	if m.Config.UI != "" {
		if err := CheckUI(m.Config.UI); err != nil {
			return &FileError{File: m.ConfigPath, Msg: err.Error()}
		}
	}
	return nil
}

func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		// The value is not quoted: a field that does not type-check may
		// hold anything, a secret pasted in the wrong place included.
		return 0, errors.New("not a duration (use a value such as \"90s\", \"10m\" or \"1h\")")
	}
	return d, nil
}

func (m *Model) loadProject(dir string, stamps map[string]fileStamp, ms *manifestStore) (*Project, *packageJSON, []string, error) {
	var files []string
	abs := filepath.Join(m.Root, filepath.FromSlash(dir))
	p := &Project{Dir: dir, Name: filepath.Base(abs)}
	pkgPath := filepath.Join(abs, "package.json")
	var known *fileStamp
	if st, ok := stamps[pkgPath]; ok {
		known = &st
	}
	pkg, err := readPackageJSONVia(pkgPath, known, ms)
	switch {
	case err == nil:
		files = append(files, pkgPath)
		// Copied, as scriptsOf copies the scripts: a string cut
		// from the saved manifests keeps the whole file alive.
		if pkg.Name != "" {
			p.Name = strings.Clone(pkg.Name)
		}
		p.Scripts = scriptsOf(pkg.Scripts)
		p.Version = strings.Clone(pkg.Version)
	case errors.Is(err, os.ErrNotExist):
		pkg = nil
	default:
		return nil, nil, nil, err
	}
	pcPath := filepath.Join(abs, ProjectFile)
	pcp, err := readCached(pcPath, func(b []byte) (*ProjectConfig, error) {
		var pc ProjectConfig
		if err := decodeJSONC(pcPath, b, &pc, true); err != nil {
			return nil, err
		}
		return &pc, nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil, err
	}
	if err == nil {
		pc := *pcp
		files = append(files, pcPath)
		p.ConfigFile = pcPath
		if pc.Name != "" {
			p.Name = pc.Name
		}
		p.Tags = pc.Tags
		p.Deps = pc.DependsOn
		if p.Overrides, err = configPaths(pcPath, pc.Tasks); err != nil {
			return nil, nil, nil, err
		}
		for name, tc := range pc.Tasks {
			if tc.Timeout != nil {
				if _, err := parseTimeout(*tc.Timeout); err != nil {
					return nil, nil, nil, fieldError(pcPath, "tasks."+name+".timeout", err)
				}
			}
			if err := tc.Sandbox.validate("tasks." + name + ".sandbox"); err != nil {
				return nil, nil, nil, &FileError{File: pcPath, Msg: err.Error()}
			}
		}
	}
	if p.Tags == nil {
		p.Tags = []string{}
	}
	return p, pkg, files, nil
}

// ProjectGlob is the pattern a project glob of the configuration matches
// workspace-relative directories with ("./apps/*/" is "apps/*"), and
// whether it excludes them (a leading "!").
func ProjectGlob(g string) (pat string, neg bool) {
	neg = strings.HasPrefix(g, "!")
	pat = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./"), "/")
	return strings.TrimSuffix(pat, "/"), neg
}

// expandProjectGlobs returns the slash-separated relative dirs matched by
// globs ("!" excludes), skipping the directories ProjectDirAllowed refuses
// and dirs without a manifest.
// It also answers the stamp of each package.json it found, which the load
// reuses rather than stat it again.
func expandProjectGlobs(root string, globs []string) ([]string, map[string]fileStamp, error) {
	fsys := os.DirFS(root)
	set := map[string]bool{}
	stamps := map[string]fileStamp{}
	for _, g := range globs {
		pat, neg := ProjectGlob(g)
		if !doublestar.ValidatePattern(pat) {
			return nil, nil, fmt.Errorf("%s: projects: %q is not a valid glob", ConfigFile, g)
		}
		dirs, err := doublestar.Glob(fsys, pat)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range dirs {
			if !ProjectDirAllowed(pat, d) {
				continue
			}
			// A manifest found inside d makes d a directory (or a link to
			// one): no stat of d itself is needed.
			if !hasManifest(filepath.Join(root, d), stamps) {
				continue
			}
			if neg {
				delete(set, d)
			} else {
				set[d] = true
			}
		}
	}
	return sortedKeys(set), stamps, nil
}

// ProjectDirAllowed reports whether dir, a slash path the project glob
// pat matched, may be a project. A directory on its way named .git, .vx
// or node_modules never may: vxd's change journal never watches them, so
// a project made there (or behind a link made there) would change unseen
// by a run that repeats the last one. A hidden directory (its name starts
// with ".") may only when the glob names it with a segment of its own
// that starts with ".", as pnpm and turbo match dot directories:
// "examples/.*/*" makes examples/.test/ssg a project, while "packages/*"
// does not make packages/.cache one. Under a "**" the segments of a glob
// and of a path no longer line up, and any dot segment of the glob may
// name a hidden directory.
func ProjectDirAllowed(pat, dir string) bool {
	patSegs := strings.Split(pat, "/")
	positional := !strings.Contains(pat, "**")
	for i, seg := range strings.Split(dir, "/") {
		switch {
		case seg == ".git" || seg == ".vx" || seg == "node_modules":
			return false
		case !strings.HasPrefix(seg, "."):
		case positional && i < len(patSegs):
			if !dotSegmentMatches(patSegs[i], seg) {
				return false
			}
		case positional:
			return false
		case !slices.ContainsFunc(patSegs, func(p string) bool { return dotSegmentMatches(p, seg) }):
			return false
		}
	}
	return true
}

// dotSegmentMatches reports whether the glob segment p starts with "."
// and matches the hidden name seg.
func dotSegmentMatches(p, seg string) bool {
	if !strings.HasPrefix(p, ".") {
		return false
	}
	ok, _ := doublestar.Match(p, seg)
	return ok
}

// hasManifest reports whether dir holds package.json or vx.project.json,
// noting the stamp of the package.json it found in stamps.
func hasManifest(dir string, stamps map[string]fileStamp) bool {
	pkg := filepath.Join(dir, "package.json")
	if st, err := stampOf(pkg); err == nil {
		stamps[pkg] = st
		return true
	}
	_, err := os.Stat(filepath.Join(dir, ProjectFile))
	return err == nil
}

// parsePnpmPackages reads the "packages:" list of pnpm-workspace.yaml.
func parsePnpmPackages(b []byte) []string {
	var out []string
	in := false
	for _, raw := range bytes.Split(b, []byte("\n")) {
		line := strings.TrimRight(string(raw), " \r\t")
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimRight(line[:i], " \t")
		}
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			in = strings.HasPrefix(line, "packages:")
			continue
		}
		if in {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "-") {
				v := strings.TrimSpace(t[1:])
				v = strings.Trim(v, `"'`)
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func (m *Model) projectNames() []string {
	out := make([]string, 0, len(m.Projects))
	for _, p := range m.Projects {
		out = append(out, p.Name)
	}
	return out
}

func (m *Model) checkProjectCycles() error {
	state := map[string]int{}
	var stack []string
	var visit func(name string) error
	visit = func(name string) error {
		switch state[name] {
		case 1:
			i := indexOf(stack, name)
			return fmt.Errorf("project dependency cycle: %s", strings.Join(append(append([]string{}, stack[i:]...), name), " → "))
		case 2:
			return nil
		}
		state[name] = 1
		stack = append(stack, name)
		for _, d := range m.byName[name].Deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[name] = 2
		return nil
	}
	for _, p := range m.Projects {
		if err := visit(p.Name); err != nil {
			return err
		}
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
