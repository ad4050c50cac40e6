package migrate

import (
	"cmp"
	"fmt"
	"github.com/vzn/vx/daemon/jsonc"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/names"
)

// nxCloudNote is why Nx Cloud's keys are dropped: vx shares its cache
// through a server of the Turborepo Remote Cache API, not Nx Cloud.
const nxCloudNote = "vx does not speak to Nx Cloud; its remote cache is a Turborepo Remote Cache API server: " +
	"set remoteCache.url in vx.workspace.json (or VX_REMOTE_CACHE_URL) and the token in VX_REMOTE_CACHE_TOKEN (vx docs remoteCache)"

// nxDropped are nx.json keys that configure Nx itself and have no vx
// counterpart; they are noted, not todos.
var nxDropped = map[string]string{
	"npmScope":            "vx names projects by package.json name or vx.project.json name",
	"cli":                 "Nx CLI settings",
	"generators":          "vx has no code generators",
	"defaultProject":      "vx runs a task in every project unless --filter narrows it",
	"release":             "vx does not version or publish packages",
	"tui":                 "vx prints task output as it comes",
	"useDaemonProcess":    "vx needs no daemon for runs",
	"useInferencePlugins": "vx infers tasks only through the plugins vx.workspace.json declares (vx docs plugins)",
	"cacheDirectory":      "vx's cache lives in .vx/cache",
	"installation":        "vx is installed on its own",
	"sync":                "vx has no sync generators",
	"workspaceLayout":     "vx finds projects through the projects globs",
	"defaultBase":         "pass the base to vx run --affected <ref>",
	"affected":            "pass the base to vx run --affected <ref>",
	"nxCloudAccessToken":  nxCloudNote,
	"nxCloudId":           nxCloudNote,
	"nxCloudUrl":          nxCloudNote,
	"neverConnectToCloud": "vx uses a remote cache only when remoteCache (or VX_REMOTE_CACHE_URL) is set",
	"useLegacyCache":      "vx has its own cache",
	"maxCacheSize":        "vx cache prune trims the cache",
	"pluginsConfig":       "a vx plugin takes its options in its vx.workspace.json declaration",
	"analytics":           "vx sends no telemetry",
}

var runCommandsExecutors = []string{"nx:run-commands", "@nrwl/workspace:run-commands", "@nx/workspace:run-commands"}
var runScriptExecutors = []string{"nx:run-script", "@nrwl/workspace:run-script"}
var noopExecutors = []string{"nx:noop", "@nrwl/workspace:noop"}

type nxProject struct {
	p      *pkg
	f      *srcFile // project.json
	named  map[string]*jsonc.Node
	tgts   *jsonc.Node
	nxName string
	graph  bool // read from Nx's resolved graph (nxgraph.go)
}

type nxTr struct {
	b          *builder
	f          *srcFile // nx.json
	named      map[string]*jsonc.Node
	defaults   map[string]*jsonc.Node
	cacheable  map[string]bool
	known      map[string]bool
	byNx       map[string]*pkg     // projects by their Nx name
	graph      bool                // the projects come from Nx's resolved graph
	graphDeps  map[string][]string // Nx name -> vx names of its dependency projects
	globalDone map[string]bool     // workspace inputs addGlobalInput handled
	// replacements are nx.json's plugins a vx plugin replaces;
	// pluginsOff is where nx.json's "plugins" key is.
	replacements []*replacement
	pluginsOff   int
}

// lookup finds a project by Nx name, else by vx name.
func (tr *nxTr) lookup(name string) *pkg {
	if p := tr.byNx[name]; p != nil {
		return p
	}
	return tr.b.byName[name]
}

// nx translates nx.json targetDefaults and namedInputs and each
// project.json's targets, name, tags and implicitDependencies.
func (b *builder) nx(f *srcFile) bool {
	tr := &nxTr{b: b, f: f, named: map[string]*jsonc.Node{}, defaults: map[string]*jsonc.Node{}, cacheable: map[string]bool{}, known: map[string]bool{}, byNx: map[string]*pkg{}}
	graph := b.nxResolvedGraph(f)
	tr.graph = graph != nil
	targetDefaults := tr.nxGlobals(f)
	var projects []*nxProject
	if graph != nil {
		projects = b.nxGraphProjects(tr, graph)
		targetDefaults = nil // already applied to each target of the graph
	} else {
		projects = b.nxProjects(tr)
	}
	for _, np := range projects {
		if np.tgts != nil {
			for _, t := range np.tgts.Members {
				tr.known[t.Key] = true
			}
		}
	}
	if targetDefaults != nil {
		tr.targetDefaults(targetDefaults)
	}
	for _, np := range projects {
		tr.project(np)
	}
	tr.reportReplacements(f, tr.pluginsOff)
	if graph == nil {
		b.note("Nx infers project dependencies from imports too; vx reads package.json dependencies and vx.project.json dependsOn, so check the ^build order with vx run build --dry")
	} else {
		b.note("projects, targets and project dependencies were read from Nx's resolved graph (nx graph), plugins' inferred targets and targetDefaults included; " +
			"the dependencies Nx finds in imports are in each vx.project.json dependsOn")
	}
	b.note("vx caches every task unless it says cache: false; Nx cached only targets marked cache: true")
	return true
}

// nxGlobals reads nx.json's keys: named inputs, target defaults (returned,
// nil when there are none) and cacheable operations into tr, and notes or
// todos for the rest.
func (tr *nxTr) nxGlobals(f *srcFile) *jsonc.Node {
	b := tr.b
	var targetDefaults *jsonc.Node
	for _, m := range f.root.Members {
		switch m.Key {
		case "$schema":
		case "namedInputs":
			if m.Val.Kind == jsonc.Object {
				for _, ni := range m.Val.Members {
					tr.named[ni.Key] = ni.Val
				}
			}
		case "targetDefaults":
			if m.Val.Kind == jsonc.Object {
				targetDefaults = m.Val
				for _, td := range m.Val.Members {
					tr.defaults[td.Key] = td.Val
					tr.known[td.Key] = true
				}
			}
		case "tasksRunnerOptions":
			def := m.Val.Get("default")
			if ops, ok := def.Get("options").Get("cacheableOperations").Strings(); ok {
				for _, op := range ops {
					tr.cacheable[op] = true
				}
			}
			if r := def.Get("runner"); r != nil && r.Kind == jsonc.String && r.Str != "nx/tasks-runners/default" && r.Str != "@nrwl/workspace/tasks-runners/default" {
				b.note("nx.json tasksRunnerOptions runner %q dropped: vx has its own local cache (.vx/cache)", r.Str)
			}
		case "plugins":
			tr.replacements, tr.pluginsOff = b.nxReplacements(m.Val.Items), m.KeyOff
			var names []string
			for _, it := range m.Val.Items {
				if it.Kind == jsonc.String {
					names = append(names, it.Str)
				} else if p := it.Get("plugin"); p != nil && p.Kind == jsonc.String {
					names = append(names, p.Str)
				}
			}
			if !tr.graph {
				// Without the graph, an installed vx plugin infers its tasks.
				names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(tr.replacedNames(), n) })
				if len(names) == 0 {
					continue
				}
			}
			if tr.graph {
				b.note("nx.json plugins (%s): the targets they infer were read from Nx's resolved graph", strings.Join(names, ", "))
				continue
			}
			b.todo(f, m.KeyOff, m.Key, fmt.Sprintf("Nx plugins (%s) infer targets vx does not see: vx runs package.json scripts and the targets translated from project.json; "+
				"add a script or a vx task with a command for each inferred target you use", strings.Join(names, ", ")))
		case "parallel":
			b.concurrency(f, m)
		case "implicitDependencies":
			b.todo(f, m.KeyOff, m.Key, "nx.json implicitDependencies (files that affect projects): list such files in globalInputs, or in the inputs of the tasks they affect")
		case "extends":
			b.todo(f, m.KeyOff, m.Key, "nx.json extends another config; vx.workspace.json has no extends — merge its settings by hand")
		default:
			b.otherKey(f, m, "nx.json", nxDropped)
		}
	}
	return targetDefaults
}

// targetDefaults translates nx.json's targetDefaults into the workspace's
// tasks.
func (tr *nxTr) targetDefaults(targetDefaults *jsonc.Node) {
	b, f := tr.b, tr.f
	for _, m := range targetDefaults.Members {
		item := "targetDefaults." + m.Key
		if strings.Contains(m.Key, ":") {
			b.todo(f, m.KeyOff, item, fmt.Sprintf("targetDefaults keyed by executor %q: vx configures tasks by name; copy these settings to the tasks that use this executor", m.Key))
			continue
		}
		if b.notObject(f, m.Val, item) {
			continue
		}
		tc := tr.target(f, item, m.Key, m.Val, nil)
		if tc.Cache != nil && *tc.Cache {
			tc.Cache = nil // vx's default
		} else if tc.Cache == nil && !tr.cacheable[m.Key] {
			tc.Cache = ptr(false)
			b.note("%s: Nx caches only targets marked cache: true, so this task has cache: false; remove it to cache %s", where(f, item), m.Key)
		}
		b.ws.Tasks[m.Key] = tc
	}
}

// nxProjects finds each project.json (outside node_modules and dot
// directories), registers its directory as a project, and lists the
// directories the workspace globs do not cover in projects.
func (b *builder) nxProjects(tr *nxTr) []*nxProject {
	var dirs []string
	_ = filepath.WalkDir(b.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != b.root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "project.json" {
			rel, _ := filepath.Rel(b.root, filepath.Dir(p))
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(dirs)
	covered := map[string]bool{}
	for _, d := range b.matchDirs(b.ws.Projects) {
		covered[d] = true
	}
	var out []*nxProject
	for _, dir := range dirs {
		if dir == "." {
			b.todo(&srcFile{rel: "project.json"}, 0, "", "a root project.json (an Nx standalone project): vx's root is not a project; "+
				"move the code into a directory listed in projects, or declare its targets as root tasks (//#name)")
			continue
		}
		f := b.readJSON(dir + "/project.json")
		if f == nil {
			continue
		}
		hasPkgJSON := b.exists(dir + "/package.json")
		p := b.addPkg(dir)
		np := &nxProject{p: p, f: f, named: tr.projectNamed(f.root.Get("namedInputs")), tgts: f.root.Get("targets")}
		if n := f.root.Get("name"); n != nil && n.Kind == jsonc.String && n.Str != "" {
			np.nxName = n.Str
			tr.byNx[n.Str] = p
			switch {
			case n.Str == p.name:
			case hasPkgJSON:
				// vx finds dependencies by package.json name, so that name stays.
				b.note("%s: Nx calls the project %q, vx calls it %q (its package.json name, by which dependencies are found); references to %q were rewritten", f.rel, n.Str, p.name, n.Str)
			default:
				b.rename(p, n.Str)
			}
		}
		if !covered[dir] {
			b.ws.Projects = append(b.ws.Projects, dir)
		}
		out = append(out, np)
	}
	b.sortPkgs()
	for _, p := range b.pkgs {
		if p.nx != nil {
			b.todo(&srcFile{rel: p.dir + "/package.json"}, 0, "nx", "the \"nx\" key of package.json (Nx project settings) was not translated; move its targets to vx.project.json tasks")
		}
	}
	return out
}

// projectNamed is a project's named inputs: nx.json's, overridden by
// the project's own namedInputs object when it has one.
func (tr *nxTr) projectNamed(ni *jsonc.Node) map[string]*jsonc.Node {
	if ni == nil || ni.Kind != jsonc.Object {
		return tr.named
	}
	named := map[string]*jsonc.Node{}
	for k, v := range tr.named {
		named[k] = v
	}
	for _, m := range ni.Members {
		named[m.Key] = m.Val
	}
	return named
}

// project translates one project.json into the project's vx.project.json.
func (tr *nxTr) project(np *nxProject) {
	b, f := tr.b, np.f
	pc := b.project(np.p.dir)
	var included *[]string // includedScripts, read from Nx's graph
	if np.nxName != "" && np.nxName == np.p.name && !b.exists(np.p.dir+"/package.json") {
		pc.Name = np.nxName
	}
	for _, m := range f.root.Members {
		switch m.Key {
		case "$schema", "name", "root", "sourceRoot", "projectType", "namedInputs", "generators", "metadata", "release", "prefix":
		case "includedScripts":
			if list, ok := b.strList(f, m); ok && np.graph {
				included = &list
			} else if ok {
				b.todo(f, m.KeyOff, m.Key, "includedScripts: vx runs every package.json script as a task; give those Nx leaves out \"command\": \"\" in vx.project.json")
			}
		case "tags":
			if list, ok := b.strList(f, m); ok {
				pc.Tags = list
			}
		case "implicitDependencies":
			list, ok := b.strList(f, m)
			if !ok {
				continue
			}
			for i, d := range list {
				// "!name" drops a dependency found in package.json or
				// imports; vx's dependsOn says the same with "!name".
				name, bang := strings.CutPrefix(d, "!")
				switch {
				case strings.ContainsAny(name, "*?") || strings.HasPrefix(name, "tag:"):
					b.todo(f, m.Val.Items[i].Off, m.Key, fmt.Sprintf("implicitDependencies %q: vx's dependsOn names projects exactly; list them", d))
				case tr.lookup(name) == nil:
					b.todo(f, m.Val.Items[i].Off, m.Key, fmt.Sprintf("implicitDependencies %q is not a project of the workspace%s; dropped", d, workspace.CloseHint(name, b.pkgNames())))
				default:
					pc.DependsOn = implicitDependency(pc.DependsOn, tr.lookup(name).name, bang)
				}
			}
		case "targets":
			if m.Val.Kind != jsonc.Object {
				b.todo(f, m.Val.Off, m.Key, fmt.Sprintf("targets: expected an object, found %s", m.Val.Kind))
				continue
			}
			for _, t := range m.Val.Members {
				if !b.notObject(f, t.Val, "targets."+t.Key) {
					tr.projectTarget(np, t, pc)
				}
			}
		default:
			b.todo(f, m.KeyOff, m.Key, fmt.Sprintf("unknown project.json key %q was not translated", m.Key))
		}
	}
	if included != nil {
		tr.unincludedScripts(np, *included, pc)
	}
	for _, d := range tr.graphDeps[np.nxName] {
		if d != np.p.name && !slices.Contains(pc.DependsOn, "!"+d) { // a drop holds (vx refuses both)
			pc.DependsOn = appendNew(pc.DependsOn, d)
		}
	}
	if pc.Name == "" && len(pc.Tags) == 0 && len(pc.DependsOn) == 0 && len(pc.Tasks) == 0 && b.exists(np.p.dir+"/package.json") {
		delete(b.projects, np.p.dir)
	}
}

// implicitDependency adds name to deps, as "!name" when drop, in place
// of the other form: Nx applies implicitDependencies in order, so the
// later of "name" and "!name" holds, and vx refuses a dependsOn with both.
func implicitDependency(deps []string, name string, drop bool) []string {
	ref, other := name, "!"+name
	if drop {
		ref, other = other, ref
	}
	deps = slices.DeleteFunc(deps, func(d string) bool { return d == other })
	return appendNew(deps, ref)
}

// projectTarget translates the project's target t into pc's tasks; a
// target a declared vx plugin replaces keeps its dependsOn alone.
func (tr *nxTr) projectTarget(np *nxProject, t jsonc.Member, pc *workspace.ProjectConfig) {
	b, f, item := tr.b, np.f, "targets."+t.Key
	if pc.Tasks == nil {
		pc.Tasks = map[string]workspace.TaskConfig{}
	}
	if r := tr.replacedBy(t.Key, np.p.dir, t.Val); np.graph && r != nil {
		r.replaced = append(r.replaced, np.p.name+"#"+t.Key)
		if deps := tr.replacedDependsOn(f, item, t.Val); deps != nil {
			pc.Tasks[t.Key] = workspace.TaskConfig{DependsOn: deps}
		}
		return
	}
	tc := tr.target(f, item, t.Key, t.Val, np)
	ws, inWS := b.ws.Tasks[t.Key]
	switch {
	case tc.Cache != nil && *tc.Cache && (!inWS || ws.Cache == nil):
		tc.Cache = nil // vx's default
	case tc.Cache == nil && !inWS && !tr.cacheable[t.Key]:
		tc.Cache = ptr(false)
	}
	pc.Tasks[t.Key] = tc
}

// unincludedScripts gives the package.json scripts that includedScripts
// leaves out, and that no target of Nx's graph is named after, an empty
// command in pc: Nx makes no target of them, while vx would run each as a
// task (typescript-eslint's "lint": "pnpm -w exec nx lint" where Nx has
// no lint target, which runs Nx to find none).
func (tr *nxTr) unincludedScripts(np *nxProject, included []string, pc *workspace.ProjectConfig) {
	var names []string
	for _, s := range slices.Sorted(maps.Keys(np.p.scripts)) {
		if slices.Contains(included, s) || np.tgts.Get(s) != nil || pc.Tasks[s].Command != nil {
			continue
		}
		if pc.Tasks == nil {
			pc.Tasks = map[string]workspace.TaskConfig{}
		}
		tc := pc.Tasks[s]
		tc.Command = ptr("")
		pc.Tasks[s] = tc
		names = append(names, s)
	}
	if len(names) > 0 {
		tr.b.note("%s includedScripts: Nx makes no target of the scripts %s; vx.project.json gives them an empty command, so vx runs nothing for them either", np.f.rel, strings.Join(names, ", "))
	}
}

// target translates a target of targetDefaults (np nil) or of a project.
func (tr *nxTr) target(f *srcFile, item, name string, n *jsonc.Node, np *nxProject) workspace.TaskConfig {
	b := tr.b
	opts := n.Get("options")
	tc := tr.targetKeys(f, item, n, np, opts)
	if np == nil {
		if ex := n.Get("executor"); ex != nil {
			b.todo(f, ex.Off, item+".executor", fmt.Sprintf("targetDefaults set executor %q for every %s target; "+
				"vx takes a task's command from the project (package.json script or vx.project.json)", ex.Str, name))
		}
		return tc
	}
	executor, opts := tr.targetExecutor(name, n, opts)
	tr.targetCommand(f, item, name, n, np, executor, opts, &tc)
	// Outputs that targetDefaults leave to each project ({options.outputPath},
	// {workspaceRoot}/dist/{projectRoot}) are resolved with this target's options.
	if tc.Outputs == nil {
		if d := tr.defaults[name].Get("outputs"); d != nil && needsProject(d) {
			tc.Outputs = tr.outputs(f, item+".outputs (from targetDefaults)", d, np, opts)
		}
	}
	return tc
}

// targetKeys translates a target's keys other than its command (executor,
// command and options are read by targetExecutor and targetCommand).
func (tr *nxTr) targetKeys(f *srcFile, item string, n *jsonc.Node, np *nxProject, opts *jsonc.Node) workspace.TaskConfig {
	b := tr.b
	var tc workspace.TaskConfig
	var env []string
	for _, m := range n.Members {
		sub := item + "." + m.Key
		switch m.Key {
		case "executor", "command", "options":
			// Read below, together.
		case "dependsOn":
			tc.DependsOn = tr.dependsOn(f, sub, m)
		case "inputs":
			named, dir := tr.named, ""
			if np != nil {
				named, dir = np.named, np.p.dir
			}
			in, e := tr.inputs(f, sub, m.Val, named, dir, tr.externalDefault(n, np))
			tc.Inputs = in
			env = append(env, e...)
		case "outputs":
			tc.Outputs = tr.outputs(f, sub, m.Val, np, opts)
		case "cache":
			if m.Val.Kind == jsonc.Bool && (tc.Cache == nil || !m.Val.Bool) {
				tc.Cache = ptr(m.Val.Bool)
			}
		case "continuous":
			if m.Val.Kind == jsonc.Bool && m.Val.Bool {
				b.todo(f, m.KeyOff, sub, "continuous: vx has no long-running task kind; a dev server or watcher never finishes, "+
					"so it is not a cacheable task and no task can wait for it. Kept with cache: false; run it on its own and make sure no task depends on it")
				tc.Cache = ptr(false)
			}
		case "configurations", "defaultConfiguration":
			if m.Val.Kind == jsonc.Object && len(m.Val.Members) == 0 {
				continue // Nx's resolved graph gives every target one
			}
			b.note("%s dropped: a vx task has one definition; make a separate task for each configuration you run", where(f, sub))
		case "parallelism":
			if m.Val.Kind == jsonc.Bool && m.Val.Bool {
				continue // Nx's default, which its resolved graph spells out
			}
			b.note("%s dropped: vx runs any task alongside others, up to workers", where(f, sub))
		case "syncGenerators", "metadata":
		default:
			b.todo(f, m.KeyOff, sub, fmt.Sprintf("unknown target key %q was not translated", m.Key))
		}
	}
	if n.Get("inputs") == nil && np != nil && np.graph {
		// Nx hashes a target without inputs as ["default", "^default"].
		def := &jsonc.Node{Kind: jsonc.Array, Items: []*jsonc.Node{{Kind: jsonc.String, Str: "default"}, {Kind: jsonc.String, Str: "^default"}}}
		if np.named["default"] == nil {
			def.Items = []*jsonc.Node{{Kind: jsonc.String, Str: "{projectRoot}/**/*"}, {Kind: jsonc.String, Str: "^{projectRoot}/**/*"}}
		}
		in, e := tr.inputs(f, item+".inputs (Nx's default)", def, np.named, np.p.dir, tr.externalDefault(n, np))
		tc.Inputs = in
		env = append(env, e...)
	}
	if len(env) > 0 {
		tc.Env = &env
	}
	return tc
}

// targetExecutor names a project target's executor: its own, else
// run-commands when it has a command (a top-level command is folded into
// the options returned), else targetDefaults'.
func (tr *nxTr) targetExecutor(name string, n, opts *jsonc.Node) (string, *jsonc.Node) {
	executor := ""
	if ex := n.Get("executor"); ex != nil && ex.Kind == jsonc.String {
		executor = ex.Str
	} else if c := n.Get("command"); c != nil && c.Kind == jsonc.String {
		executor = "nx:run-commands"
		opts = &jsonc.Node{Kind: jsonc.Object, Members: append([]jsonc.Member{{Key: "command", Val: c}}, membersOf(opts)...)}
	} else if opts.Get("command") != nil || opts.Get("commands") != nil {
		executor = "nx:run-commands"
	} else if ex := tr.defaults[name].Get("executor"); ex != nil && ex.Kind == jsonc.String {
		executor = ex.Str
	}
	return executor, opts
}

// targetCommand sets tc's command from a project target's executor, or
// notes and todos why it has none.
func (tr *nxTr) targetCommand(f *srcFile, item, name string, n *jsonc.Node, np *nxProject, executor string, opts *jsonc.Node, tc *workspace.TaskConfig) {
	b := tr.b
	p := np.p
	switch {
	case executor == "":
		if p.scripts[name] == "" {
			b.note("%s %s has no executor and no %q script; it runs nothing (an ordering-only node)", f.rel, item, name)
		}
	case slices.Contains(runCommandsExecutors, executor):
		if cmd, execEnv, ok := tr.runCommands(f, item, opts, np); ok {
			tc.Command = &cmd
			if len(execEnv) > 0 {
				tc.Exec = &workspace.Exec{Env: execEnv}
			}
		}
	case slices.Contains(runScriptExecutors, executor):
		script := name
		if s := opts.Get("script"); s != nil && s.Kind == jsonc.String {
			script = s.Str
		}
		if script != name || p.scripts[name] == "" {
			cmd := b.plan.PackageManager + " run " + script
			tc.Command = &cmd
		}
	case slices.Contains(noopExecutors, executor):
		b.note("%s %s uses %s; vx keeps it as an ordering-only node that runs nothing", f.rel, item, executor)
	default:
		off := n.Off
		if ex := n.Get("executor"); ex != nil {
			off = ex.Off
		}
		if cmd, dropped, ok := executorCommand(executor, opts, p.dir); ok {
			tc.Command = &cmd
			b.note("%s %s: the %s executor became the command it runs: %s", f.rel, item, executor, cmd)
			if len(dropped) > 0 {
				b.todo(f, off, item+".options", fmt.Sprintf("options %s of the %s executor were not translated into the command %q; add what they do by hand", strings.Join(dropped, ", "), executor, cmd))
			}
			break
		}
		if p.scripts[name] != "" {
			b.todo(f, off, item+".executor", fmt.Sprintf("executor %q has no vx equivalent; vx runs the package.json %q script (%s) instead — check it does the same", executor, name, p.scripts[name]))
			break
		}
		cmd := fmt.Sprintf("echo 'vx init: the %s executor of %s:%s is not translated; give this task a command in %s/%s' >&2; exit 1", executor, p.name, name, p.dir, workspace.ProjectFile)
		tc.Command = &cmd
		b.todo(f, off, item+".executor", fmt.Sprintf("executor %q has no vx equivalent: write the shell command it runs as this task's command (the proposal fails with a message until then)", executor))
	}
}

func membersOf(n *jsonc.Node) []jsonc.Member {
	if n == nil {
		return nil
	}
	return n.Members
}

func needsProject(outputs *jsonc.Node) bool {
	for _, it := range outputs.Items {
		if it.Kind == jsonc.String && !simpleProjectPath(strings.TrimPrefix(it.Str, "!")) {
			return true
		}
	}
	return false
}

// simpleProjectPath reports whether s is "{projectRoot}/path" with no other token.
func simpleProjectPath(s string) bool {
	rest, ok := strings.CutPrefix(s, "{projectRoot}/")
	return ok && !hasNxToken(rest)
}

// hasNxToken reports whether s holds an Nx token ({projectRoot},
// {workspaceRoot}, {projectName}, {options.…}); other braces are glob
// alternatives ("*.{ts,tsx}").
func hasNxToken(s string) bool {
	for _, tok := range []string{"{projectRoot}", "{workspaceRoot}", "{projectName}", "{options."} {
		if strings.Contains(s, tok) {
			return true
		}
	}
	return false
}

// runCommands turns nx:run-commands options into one shell command run in
// the project directory: Nx runs them in options.cwd, else the workspace
// root, so the command starts with a cd there.
func (tr *nxTr) runCommands(f *srcFile, item string, opts *jsonc.Node, np *nxProject) (string, map[string]workspace.EnvVar, bool) {
	b := tr.b
	rc := tr.runCommandsOptions(f, item, opts, np)
	cmds, parallel, cwd, execEnv := rc.cmds, rc.parallel, rc.cwd, rc.execEnv
	args := strings.Join(rc.forwarded(), " ")
	if len(cmds) == 0 {
		b.todo(f, offOr(opts, 0), item+".options", "nx:run-commands without a command; not translated")
		return "", nil, false
	}
	toRoot := relSlash(cwd, ".")
	toProject := relSlash(cwd, np.p.dir)
	for i, c := range cmds {
		if args != "" {
			c += " " + args
		}
		c = strings.ReplaceAll(c, "{workspaceRoot}", toRoot)
		c = strings.ReplaceAll(c, "{projectRoot}", toProject)
		c = strings.ReplaceAll(c, "{projectName}", cmp.Or(np.nxName, np.p.name))
		if strings.Contains(c, "{args") {
			b.todo(f, offOr(opts, 0), item+".options", fmt.Sprintf("command %q reads {args…} that nx passed on its command line; vx passes none — put the values in the command", c))
		}
		cmds[i] = c
	}
	if len(cmds) > 1 && parallel {
		b.note("%s %s ran its commands in parallel in Nx; vx runs them one after another, stopping at the first failure", f.rel, item)
	}
	cmd := strings.Join(cmds, " && ")
	if dir := relSlash(np.p.dir, cwd); dir != "." {
		cmd = "cd " + shellQuote(dir) + " && " + cmd
	}
	return cmd, execEnv, true
}

// runCommandsOpts are the nx:run-commands options runCommands reads.
type runCommandsOpts struct {
	cmds     []string
	parallel bool
	cwd      string // workspace-relative
	args     string
	// options are the options run-commands does not know, as
	// --name=value, which it appends to each command before args.
	options []string
	// noForward: forwardAllArgs false, which appends neither.
	noForward bool
	execEnv   map[string]workspace.EnvVar
}

// forwarded is what nx:run-commands appends to each command: the options
// it does not know, then args, unless forwardAllArgs is false.
func (rc runCommandsOpts) forwarded() []string {
	if rc.noForward {
		return nil
	}
	out := slices.Clone(rc.options)
	if rc.args != "" {
		out = append(out, rc.args)
	}
	return out
}

// runCommandsOptions reads nx:run-commands options, with todos for those
// vx cannot translate.
func (tr *nxTr) runCommandsOptions(f *srcFile, item string, opts *jsonc.Node, np *nxProject) runCommandsOpts {
	b := tr.b
	rc := runCommandsOpts{parallel: true, cwd: "."}
	for _, m := range membersOf(opts) {
		sub := item + ".options." + m.Key
		switch m.Key {
		case "command":
			if m.Val.Kind == jsonc.String {
				rc.cmds = append(rc.cmds, m.Val.Str)
			}
		case "commands":
			for _, it := range m.Val.Items {
				switch {
				case it.Kind == jsonc.String:
					rc.cmds = append(rc.cmds, it.Str)
				case it.Get("command") != nil && it.Get("command").Kind == jsonc.String:
					rc.cmds = append(rc.cmds, it.Get("command").Str)
				default:
					b.todo(f, it.Off, sub, "a command that is neither a string nor {\"command\": string}; not translated")
				}
			}
		case "parallel":
			rc.parallel = m.Val.Kind == jsonc.Bool && m.Val.Bool
		case "cwd":
			if m.Val.Kind == jsonc.String {
				c := strings.ReplaceAll(m.Val.Str, "{projectRoot}", np.p.dir)
				c = strings.TrimPrefix(strings.ReplaceAll(c, "{workspaceRoot}", ""), "/")
				if c == "" {
					c = "."
				}
				if filepath.IsAbs(m.Val.Str) || strings.Contains(c, "{") {
					b.todo(f, m.Val.Off, sub, fmt.Sprintf("cwd %q is not a workspace-relative directory; set the command's directory by hand", m.Val.Str))
				}
				rc.cwd = path.Clean(c)
			}
		case "args":
			if a, ok := argsText(m.Val); ok {
				rc.args = a
			} else {
				b.todo(f, m.KeyOff, sub, fmt.Sprintf("args: expected a string or a list of strings, found %s; not translated (append them to the command)", m.Val.Kind))
			}
		case "forwardAllArgs":
			rc.noForward = m.Val.Kind == jsonc.Bool && !m.Val.Bool
		case "env":
			if m.Val.Kind == jsonc.Object {
				rc.execEnv = map[string]workspace.EnvVar{}
				for _, e := range m.Val.Members {
					v := e.Val.Str
					if e.Val.Kind != jsonc.String {
						v = fmt.Sprint(e.Val.Value())
					}
					rc.execEnv[e.Key] = workspace.EnvVar{Value: ptr(v)}
				}
			}
		case "envFile":
			b.todo(f, m.KeyOff, sub, "envFile: vx does not load .env files into tasks; declare the variables in exec.env, env or passEnv")
		case "readyWhen":
			b.todo(f, m.KeyOff, sub, "readyWhen: the command is a long-running process; vx waits for a task to exit, so run it on its own")
		case "color", "tty", "usePty", "streamOutput", "verbose", "__unparsed__", "description", "outputPath", "script":
		default:
			if v, ok := scalarText(m.Val); ok && isOptionName(m.Key) {
				rc.options = append(rc.options, "--"+m.Key+"="+shellQuote(v))
				continue
			} else if ok {
				b.todo(f, m.KeyOff, sub, fmt.Sprintf("run-commands option %q was not translated: its name is not an option's (letters, digits, - _ .), and written as --name=value it would be shell text in the command", m.Key))
				continue
			}
			b.todo(f, m.KeyOff, sub, fmt.Sprintf("run-commands option %q was not translated", m.Key))
		}
	}
	return rc
}

// isOptionName says whether an option nx:run-commands forwards may be
// written unquoted as --name=value: a letter or digit, then letters,
// digits, "-", "_" and ".", up to 100 of them. Another name (";", "$(",
// a space) would be shell text in the command vx init writes.
func isOptionName(s string) bool {
	return names.Shaped(s, 100, names.Alnum, func(c byte) bool { return names.Alnum(c) || c == '-' || c == '_' || c == '.' })
}

// argsText is nx:run-commands "args" as Nx appends it: a string as it
// is, a list of strings, numbers or booleans joined by spaces; false for
// another shape.
func argsText(n *jsonc.Node) (string, bool) {
	if n.Kind != jsonc.Array {
		return n.Str, n.Kind == jsonc.String
	}
	words := make([]string, 0, len(n.Items))
	for _, it := range n.Items {
		w, ok := scalarText(it)
		if !ok {
			return "", false
		}
		words = append(words, w)
	}
	return strings.Join(words, " "), true
}

// scalarText is a string's, number's or boolean's text, as nx:run-commands
// writes an option it does not know; false for a list or an object, which
// it does not pass.
func scalarText(n *jsonc.Node) (string, bool) {
	switch n.Kind {
	case jsonc.String, jsonc.Number:
		return n.Str, true
	case jsonc.Bool:
		return strconv.FormatBool(n.Bool), true
	}
	return "", false
}

func offOr(n *jsonc.Node, def int) int {
	if n == nil {
		return def
	}
	return n.Off
}

// relSlash is the slash path from dir a to dir b, both workspace-relative.
func relSlash(a, b string) string {
	r, err := filepath.Rel(filepath.FromSlash(a), filepath.FromSlash(b))
	if err != nil {
		return b
	}
	return filepath.ToSlash(r)
}

func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dependsOn translates Nx dependsOn: "^build", "build" and objects
// {projects|dependencies, target}.
func (tr *nxTr) dependsOn(f *srcFile, item string, m jsonc.Member) *[]string {
	b := tr.b
	if m.Val.Kind != jsonc.Array {
		b.todo(f, m.Val.Off, item, fmt.Sprintf("dependsOn: expected a list, found %s; not translated", m.Val.Kind))
		return nil
	}
	out := []string{}
	add := func(off int, ref, target string) {
		if !tr.known[target] && !b.hasScript(target) {
			b.todo(f, off, item, fmt.Sprintf("dependsOn %q: no target or script is named %q anywhere; dropped", ref, target))
			return
		}
		out = appendNew(out, ref)
	}
	for _, it := range m.Val.Items {
		switch it.Kind {
		case jsonc.String:
			s := it.Str
			switch {
			case strings.ContainsAny(s, "*?"):
				b.todo(f, it.Off, item, fmt.Sprintf("dependsOn %q: vx names tasks exactly (no patterns); list them", s))
			case strings.HasPrefix(s, "^"):
				add(it.Off, s, s[1:])
			case strings.Contains(s, ":"):
				proj, target, _ := strings.Cut(s, ":")
				p := tr.lookup(proj)
				if p == nil {
					b.todo(f, it.Off, item, fmt.Sprintf("dependsOn %q: %q is not a project of the workspace; dropped", s, proj))
					continue
				}
				add(it.Off, workspace.TaskID(p.name, target), target)
			default:
				add(it.Off, s, s)
			}
		case jsonc.Object:
			target := it.Get("target")
			if target == nil || target.Kind != jsonc.String {
				b.todo(f, it.Off, item, "a dependsOn object without a target; not translated")
				continue
			}
			t := target.Str
			if it.Get("params") != nil {
				b.note("%s: params of the dependency on %s dropped; vx passes no arguments to tasks", where(f, item), t)
			}
			projects := it.Get("projects")
			deps := it.Get("dependencies")
			switch {
			case deps != nil && deps.Kind == jsonc.Bool && deps.Bool:
				add(it.Off, "^"+t, t)
			case projects == nil:
				add(it.Off, t, t)
			case projects.Kind == jsonc.String && (projects.Str == "dependencies" || projects.Str == "{dependencies}"):
				add(it.Off, "^"+t, t)
			case projects.Kind == jsonc.String && (projects.Str == "self" || projects.Str == "{self}"):
				add(it.Off, t, t)
			default:
				var names []string
				if projects.Kind == jsonc.String {
					names = []string{projects.Str}
				} else if list, ok := projects.Strings(); ok {
					names = list
				}
				for _, name := range names {
					p := tr.lookup(name)
					if p == nil {
						b.todo(f, projects.Off, item, fmt.Sprintf("dependsOn projects %q: not a project of the workspace (vx names projects exactly, no tags or patterns); dropped", name))
						continue
					}
					add(it.Off, workspace.TaskID(p.name, t), t)
				}
				if names == nil {
					b.todo(f, projects.Off, item, "dependsOn projects: expected a project name or a list of them; not translated")
				}
			}
		default:
			b.todo(f, it.Off, item, fmt.Sprintf("dependsOn entry: expected a string or an object, found %s", it.Kind))
		}
	}
	return &out
}

// inputs expands Nx inputs (named inputs, {projectRoot} and
// {workspaceRoot} paths, {env}) into vx input globs and env names. Input
// covering every project file is vx's default and is left out.
func (tr *nxTr) inputs(f *srcFile, item string, list *jsonc.Node, named map[string]*jsonc.Node, dir, external string) (*[]string, []string) {
	b := tr.b
	in := &nxInputs{tr: tr, named: named, dir: dir}
	in.walk(f, item, list, 0)
	if !in.external && external != "" {
		in.roots = appendNew(in.roots, external)
	}
	globs, negs, env := in.globs, in.negs, in.env
	deps := append(in.depInputs(), in.roots...)
	if in.all && len(deps) > 0 && len(negs) == 0 {
		out := append([]string{"**"}, deps...)
		return &out, env
	}
	if in.all {
		if len(negs) == 0 {
			b.note("%s cover every file of the project, vx's default (every file git does not ignore); inputs left out", where(f, item))
			return nil, env
		}
		out := append(append([]string{"**"}, negs...), deps...)
		return &out, env
	}
	out := append(append(append([]string{}, globs...), negs...), deps...)
	if len(globs) == 0 && len(deps) == 0 {
		b.todo(f, list.Off, item, "these inputs name no file of the project, and vx reads an empty list as every file; list the files the task reads")
	}
	return &out, env
}

// nxInputs collects one target's inputs as inputs walks them.
type nxInputs struct {
	tr               *nxTr
	named            map[string]*jsonc.Node
	dir              string // the project's, "" for targetDefaults
	globs, negs, env []string
	all              bool // an input covers every file of the project
	// The same for the files of the dependency projects ("^production"),
	// collected while inDep.
	depGlobs, depNegs []string
	depAll, inDep     bool
	roots             []string // workspace files ("/tsconfig.base.json") and npm: packages
	external          bool     // an externalDependencies input was read
}

// depInputs are the vx "^" inputs for the dependency projects' files.
func (in *nxInputs) depInputs() []string {
	var out []string
	if in.depAll {
		out = append(out, "^**")
	} else {
		for _, g := range in.depGlobs {
			out = append(out, "^"+g)
		}
	}
	if len(out) == 0 {
		return nil
	}
	for _, g := range in.depNegs {
		out = append(out, "^!"+g)
	}
	return out
}

// dep walks input s (a named input or a path) as an input of the
// dependency projects, as Nx reads "^production".
func (in *nxInputs) dep(f *srcFile, item string, off int, s string, depth int) {
	was := in.inDep
	in.inDep = true
	if strings.Contains(s, "{") || strings.Contains(s, "/") {
		in.path(f, item, off, s)
	} else {
		in.expandName(f, item, off, s, depth)
	}
	in.inDep = was
}

// walk reads a list of inputs, expanding named inputs up to 20 deep.
func (in *nxInputs) walk(f *srcFile, item string, list *jsonc.Node, depth int) {
	b := in.tr.b
	if list.Kind != jsonc.Array {
		b.todo(f, list.Off, item, fmt.Sprintf("inputs: expected a list, found %s", list.Kind))
		return
	}
	for _, it := range list.Items {
		switch it.Kind {
		case jsonc.String:
			s := it.Str
			switch {
			case strings.HasPrefix(s, "^"):
				in.dep(f, item, it.Off, s[1:], depth)
			case strings.Contains(s, "{") || strings.Contains(s, "/"):
				in.path(f, item, it.Off, s)
			default:
				in.expandName(f, item, it.Off, s, depth)
			}
		case jsonc.Object:
			in.object(f, item, it, depth)
		default:
			b.todo(f, it.Off, item, fmt.Sprintf("input: expected a string or an object, found %s", it.Kind))
		}
	}
}

// object reads one input object: env, fileset, input and the kinds vx
// does not hash.
func (in *nxInputs) object(f *srcFile, item string, it *jsonc.Node, depth int) {
	b := in.tr.b
	switch {
	case it.Get("env") != nil:
		if e := it.Get("env"); e.Kind == jsonc.String {
			in.env = appendNew(in.env, e.Str)
		}
	case it.Get("fileset") != nil:
		in.path(f, item, it.Off, it.Get("fileset").Str)
	case it.Get("input") != nil:
		if d := it.Get("dependencies"); d != nil && d.Kind == jsonc.Bool && d.Bool && it.Get("projects") == nil {
			in.dep(f, item, it.Off, it.Get("input").Str, depth)
			return
		}
		if it.Get("projects") != nil || it.Get("dependencies") != nil {
			b.note("%s: the %q input of other projects dropped; a task's key includes the keys of the tasks it depends on", where(f, item), it.Get("input").Str)
			return
		}
		in.expandName(f, item, it.Off, it.Get("input").Str, depth)
	case it.Get("runtime") != nil:
		b.todo(f, it.Off, item, fmt.Sprintf("runtime input %q: vx does not run commands to compute keys; declare what it reads as env or globalInputs", it.Get("runtime").Str))
	case it.Get("externalDependencies") != nil:
		names, _ := it.Get("externalDependencies").Strings()
		for _, name := range names {
			in.roots = appendNew(in.roots, "npm:"+name)
		}
		in.external = true
	case it.Get("dependentTasksOutputFiles") != nil:
		b.note("%s dependentTasksOutputFiles dropped: a task's key includes the keys of the tasks it depends on", where(f, item))
	default:
		b.todo(f, it.Off, item, "an input object vx does not know; dropped")
	}
}

// expandName walks the named input name (from nx.json or project.json).
func (in *nxInputs) expandName(f *srcFile, item string, off int, name string, depth int) {
	b := in.tr.b
	ni := in.named[name]
	if ni == nil {
		b.todo(f, off, item, fmt.Sprintf("input %q is not a named input of nx.json or project.json; dropped", name))
		return
	}
	if depth > 20 {
		b.todo(f, off, item, fmt.Sprintf("named input %q refers to itself; dropped", name))
		return
	}
	in.walk(in.tr.f, "namedInputs."+name, ni, depth+1)
}

// path reads one path input: {projectRoot} globs become vx inputs,
// {workspaceRoot} ones are checked against globalInputs.
func (in *nxInputs) path(f *srcFile, item string, off int, s string) {
	b := in.tr.b
	neg := strings.HasPrefix(s, "!")
	p := strings.TrimPrefix(s, "!")
	if strings.Contains(p, "(") {
		g, ok := extglob(p)
		if !ok {
			b.todo(f, off, item, fmt.Sprintf("input %q: a negated or unbalanced extended glob group, which vx globs cannot say; dropped", s))
			return
		}
		p = g
	}
	if rest, ok := strings.CutPrefix(p, "{workspaceRoot}/"+in.dir+"/"); ok && in.dir != "" && !in.inDep {
		p = "{projectRoot}/" + rest // the project's own file, named from the root
	}
	switch {
	case p == "{projectRoot}/**/*" || p == "{projectRoot}/**" || p == "{projectRoot}":
		if neg {
			b.todo(f, off, item, fmt.Sprintf("input %q excludes every file; dropped", s))
			return
		}
		if in.inDep {
			in.depAll = true
		} else {
			in.all = true
		}
	case simpleProjectPath(p) && in.inDep:
		g := strings.TrimPrefix(p, "{projectRoot}/")
		if neg {
			in.depNegs = appendNew(in.depNegs, g)
		} else {
			in.depGlobs = appendNew(in.depGlobs, g)
		}
	case simpleProjectPath(p):
		g := strings.TrimPrefix(p, "{projectRoot}/")
		if neg {
			in.negs = appendNew(in.negs, "!"+g)
		} else {
			in.globs = appendNew(in.globs, g)
		}
	case strings.HasPrefix(p, "{workspaceRoot}/"):
		rel := strings.TrimPrefix(p, "{workspaceRoot}/")
		if !neg && b.inGlobalInputs(rel) {
			return
		}
		if !neg {
			if in.tr.matchesFile(f, item, rel) {
				in.roots = appendNew(in.roots, "/"+rel)
			}
			return
		}
		if neg {
			b.note("%s: the exclusion %q dropped: globalInputs take no exclusions, and a workspace file is an input of a vx task only where it is listed", where(f, item), s)
			return
		}
		b.todo(f, off, item, fmt.Sprintf("input %q: a vx task's inputs are files of its project; add %q to globalInputs if every task should re-run when it changes, else drop it", s, rel))
	default:
		b.todo(f, off, item, fmt.Sprintf("input %q: expected {projectRoot}/… or {workspaceRoot}/…; dropped", s))
	}
}

// outputs translates Nx outputs into globs relative to the project. Paths
// that need a project ({options.outputPath}, {workspaceRoot}/dist/…) are
// resolved when np is given, else left to each project.
func (tr *nxTr) outputs(f *srcFile, item string, list *jsonc.Node, np *nxProject, opts *jsonc.Node) *[]string {
	b := tr.b
	if list.Kind != jsonc.Array {
		b.todo(f, list.Off, item, fmt.Sprintf("outputs: expected a list, found %s", list.Kind))
		return nil
	}
	out := []string{}
	for _, it := range list.Items {
		if it.Kind != jsonc.String {
			b.todo(f, it.Off, item, fmt.Sprintf("output: expected a string, found %s", it.Kind))
			continue
		}
		neg := strings.HasPrefix(it.Str, "!")
		s := strings.TrimPrefix(it.Str, "!")
		var rel string
		switch {
		case simpleProjectPath(s):
			rel = strings.TrimPrefix(s, "{projectRoot}/")
		case np == nil:
			b.note("%s %q depends on the project; it is resolved in each project.json target of that name", where(f, item), it.Str)
			continue
		default:
			p := s
			if strings.HasPrefix(p, "{options.") {
				key, rest, _ := strings.Cut(strings.TrimPrefix(p, "{options."), "}")
				v := opts.Get(key)
				if v == nil || v.Kind != jsonc.String {
					continue // Nx skips outputs whose option is not set.
				}
				p = v.Str + rest
			}
			p = strings.ReplaceAll(p, "{projectRoot}", np.p.dir)
			p = strings.TrimPrefix(strings.ReplaceAll(p, "{workspaceRoot}", ""), "/")
			p = path.Clean(p)
			switch {
			case hasNxToken(p):
				b.todo(f, it.Off, item, fmt.Sprintf("output %q: a token vx cannot resolve; dropped", it.Str))
				continue
			case p == np.p.dir || strings.HasPrefix(p, np.p.dir+"/"):
				rel = strings.TrimPrefix(strings.TrimPrefix(p, np.p.dir), "/")
			default:
				b.todo(f, it.Off, item, fmt.Sprintf("output %q is %s, outside the project: vx keeps and restores outputs inside the project only; make the task write under %s/ (e.g. "+
					"dist/) and list it here", it.Str, p, np.p.dir))
				continue
			}
		}
		g := rel
		if g == "" {
			g = "**"
		} else if !strings.ContainsAny(g, "*?[{") && !strings.Contains(path.Base(g), ".") {
			g += "/**" // Nx outputs name directories; vx outputs are globs.
		}
		if neg {
			g = "!" + g
		}
		out = appendNew(out, g)
	}
	return &out
}
