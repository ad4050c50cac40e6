package migrate

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vzn/vx/daemon/workspace"
)

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
	"useInferencePlugins": "vx infers no targets",
	"cacheDirectory":      "vx's cache lives in .vx/cache",
	"installation":        "vx is installed on its own",
	"sync":                "vx has no sync generators",
	"workspaceLayout":     "vx finds projects through the projects globs",
	"defaultBase":         "pass the base to vx run --affected <ref>",
	"affected":            "pass the base to vx run --affected <ref>",
	"nxCloudAccessToken":  "vx has no remote cache yet; its cache is local (.vx/cache)",
	"nxCloudId":           "vx has no remote cache yet; its cache is local (.vx/cache)",
	"nxCloudUrl":          "vx has no remote cache yet; its cache is local (.vx/cache)",
	"neverConnectToCloud": "vx has no remote cache",
	"useLegacyCache":      "vx has its own cache",
	"maxCacheSize":        "vx cache prune trims the cache",
	"pluginsConfig":       "vx has no plugins of this kind",
}

var runCommandsExecutors = []string{"nx:run-commands", "@nrwl/workspace:run-commands", "@nx/workspace:run-commands"}
var runScriptExecutors = []string{"nx:run-script", "@nrwl/workspace:run-script"}
var noopExecutors = []string{"nx:noop", "@nrwl/workspace:noop"}

type nxProject struct {
	p      *pkg
	f      *srcFile // project.json
	named  map[string]*node
	tgts   *node
	nxName string
}

type nxTr struct {
	b         *builder
	f         *srcFile // nx.json
	named     map[string]*node
	defaults  map[string]*node
	cacheable map[string]bool
	known     map[string]bool
	byNx      map[string]*pkg // projects by their Nx name
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
	tr := &nxTr{b: b, f: f, named: map[string]*node{}, defaults: map[string]*node{}, cacheable: map[string]bool{}, known: map[string]bool{}, byNx: map[string]*pkg{}}
	var targetDefaults *node
	for _, m := range f.root.members {
		switch m.key {
		case "$schema":
		case "namedInputs":
			if m.val.kind == kObject {
				for _, ni := range m.val.members {
					tr.named[ni.key] = ni.val
				}
			}
		case "targetDefaults":
			if m.val.kind == kObject {
				targetDefaults = m.val
				for _, td := range m.val.members {
					tr.defaults[td.key] = td.val
					tr.known[td.key] = true
				}
			}
		case "tasksRunnerOptions":
			def := m.val.get("default")
			if ops, ok := def.get("options").get("cacheableOperations").strings(); ok {
				for _, op := range ops {
					tr.cacheable[op] = true
				}
			}
			if r := def.get("runner"); r != nil && r.kind == kString && r.str != "nx/tasks-runners/default" && r.str != "@nrwl/workspace/tasks-runners/default" {
				b.note("nx.json tasksRunnerOptions runner %q dropped: vx has its own local cache (.vx/cache)", r.str)
			}
		case "plugins":
			var names []string
			for _, it := range m.val.items {
				if it.kind == kString {
					names = append(names, it.str)
				} else if p := it.get("plugin"); p != nil && p.kind == kString {
					names = append(names, p.str)
				}
			}
			b.todo(f, m.keyOff, m.key, fmt.Sprintf("Nx plugins (%s) infer targets vx does not see: vx runs package.json scripts and the targets translated from project.json; add a script or a vx task with a command for each inferred target you use", strings.Join(names, ", ")))
		case "parallel":
			b.concurrency(f, m)
		case "implicitDependencies":
			b.todo(f, m.keyOff, m.key, "nx.json implicitDependencies (files that affect projects): list such files in globalInputs, or in the inputs of the tasks they affect")
		case "extends":
			b.todo(f, m.keyOff, m.key, "nx.json extends another config; vx.workspace.json has no extends — merge its settings by hand")
		default:
			if why, ok := nxDropped[m.key]; ok {
				b.note("nx.json %s dropped: %s", m.key, why)
				continue
			}
			b.todo(f, m.keyOff, m.key, fmt.Sprintf("unknown nx.json key %q was not translated", m.key))
		}
	}

	projects := b.nxProjects(tr)
	for _, np := range projects {
		if np.tgts != nil {
			for _, t := range np.tgts.members {
				tr.known[t.key] = true
			}
		}
	}

	if targetDefaults != nil {
		for _, m := range targetDefaults.members {
			item := "targetDefaults." + m.key
			if strings.Contains(m.key, ":") {
				b.todo(f, m.keyOff, item, fmt.Sprintf("targetDefaults keyed by executor %q: vx configures tasks by name; copy these settings to the tasks that use this executor", m.key))
				continue
			}
			if m.val.kind != kObject {
				b.todo(f, m.val.off, item, fmt.Sprintf("expected an object, found %s; not translated", m.val.kind))
				continue
			}
			tc := tr.target(f, item, m.key, m.val, nil)
			if tc.Cache != nil && *tc.Cache {
				tc.Cache = nil // vx's default
			} else if tc.Cache == nil && !tr.cacheable[m.key] {
				tc.Cache = ptr(false)
				b.note("%s: Nx caches only targets marked cache: true, so this task has cache: false; remove it to cache %s", where(f, item), m.key)
			}
			b.ws.Tasks[m.key] = tc
		}
	}
	for _, np := range projects {
		tr.project(np)
	}
	b.note("Nx infers project dependencies from imports too; vx reads package.json dependencies and vx.project.json dependsOn, so check the ^build order with vx run build --dry")
	b.note("vx caches every task unless it says cache: false; Nx cached only targets marked cache: true")
	return true
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
			b.todo(&srcFile{rel: "project.json"}, 0, "", "a root project.json (an Nx standalone project): vx's root is not a project; move the code into a directory listed in projects, or declare its targets as root tasks (//#name)")
			continue
		}
		f := b.readJSON(dir + "/project.json")
		if f == nil {
			continue
		}
		hasPkgJSON := b.exists(dir + "/package.json")
		p := b.addPkg(dir)
		np := &nxProject{p: p, f: f, named: tr.named, tgts: f.root.get("targets")}
		if n := f.root.get("name"); n != nil && n.kind == kString && n.str != "" {
			np.nxName = n.str
			tr.byNx[n.str] = p
			switch {
			case n.str == p.name:
			case hasPkgJSON:
				// vx finds dependencies by package.json name, so that name stays.
				b.note("%s: Nx calls the project %q, vx calls it %q (its package.json name, by which dependencies are found); references to %q were rewritten", f.rel, n.str, p.name, n.str)
			default:
				if b.byName[p.name] == p {
					delete(b.byName, p.name)
				}
				p.name = n.str
				b.byName[p.name] = p
			}
		}
		if ni := f.root.get("namedInputs"); ni != nil && ni.kind == kObject {
			np.named = map[string]*node{}
			for k, v := range tr.named {
				np.named[k] = v
			}
			for _, m := range ni.members {
				np.named[m.key] = m.val
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

// project translates one project.json into the project's vx.project.json.
func (tr *nxTr) project(np *nxProject) {
	b, f := tr.b, np.f
	pc := b.project(np.p.dir)
	if np.nxName != "" && np.nxName == np.p.name && !b.exists(np.p.dir+"/package.json") {
		pc.Name = np.nxName
	}
	for _, m := range f.root.members {
		switch m.key {
		case "$schema", "name", "root", "sourceRoot", "projectType", "namedInputs", "generators", "metadata", "release":
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
				switch {
				case strings.HasPrefix(d, "!") || strings.ContainsAny(d, "*?") || strings.HasPrefix(d, "tag:"):
					b.todo(f, m.val.items[i].off, m.key, fmt.Sprintf("implicitDependencies %q: vx's dependsOn names projects exactly; list them", d))
				case tr.lookup(d) == nil:
					b.todo(f, m.val.items[i].off, m.key, fmt.Sprintf("implicitDependencies %q is not a project of the workspace%s; dropped", d, workspace.CloseHint(d, b.pkgNames())))
				default:
					pc.DependsOn = appendNew(pc.DependsOn, tr.lookup(d).name)
				}
			}
		case "targets":
			if m.val.kind != kObject {
				b.todo(f, m.val.off, m.key, fmt.Sprintf("targets: expected an object, found %s", m.val.kind))
				continue
			}
			for _, t := range m.val.members {
				item := "targets." + t.key
				if t.val.kind != kObject {
					b.todo(f, t.val.off, item, fmt.Sprintf("expected an object, found %s; not translated", t.val.kind))
					continue
				}
				tc := tr.target(f, item, t.key, t.val, np)
				ws, inWS := b.ws.Tasks[t.key]
				switch {
				case tc.Cache != nil && *tc.Cache && (!inWS || ws.Cache == nil):
					tc.Cache = nil // vx's default
				case tc.Cache == nil && !inWS && !tr.cacheable[t.key]:
					tc.Cache = ptr(false)
				}
				if pc.Tasks == nil {
					pc.Tasks = map[string]workspace.TaskConfig{}
				}
				pc.Tasks[t.key] = tc
			}
		default:
			b.todo(f, m.keyOff, m.key, fmt.Sprintf("unknown project.json key %q was not translated", m.key))
		}
	}
	if pc.Name == "" && len(pc.Tags) == 0 && len(pc.DependsOn) == 0 && len(pc.Tasks) == 0 && b.exists(np.p.dir+"/package.json") {
		delete(b.projects, np.p.dir)
	}
}

// target translates a target of targetDefaults (np nil) or of a project.
func (tr *nxTr) target(f *srcFile, item, name string, n *node, np *nxProject) workspace.TaskConfig {
	b := tr.b
	var tc workspace.TaskConfig
	var env []string
	opts := n.get("options")
	for _, m := range n.members {
		sub := item + "." + m.key
		switch m.key {
		case "executor", "command", "options":
			// Read below, together.
		case "dependsOn":
			tc.DependsOn = tr.dependsOn(f, sub, m)
		case "inputs":
			named := tr.named
			if np != nil {
				named = np.named
			}
			in, e := tr.inputs(f, sub, m.val, named)
			tc.Inputs = in
			env = append(env, e...)
		case "outputs":
			tc.Outputs = tr.outputs(f, sub, m.val, np, opts)
		case "cache":
			if m.val.kind == kBool && (tc.Cache == nil || !m.val.b) {
				tc.Cache = ptr(m.val.b)
			}
		case "continuous":
			if m.val.kind == kBool && m.val.b {
				b.todo(f, m.keyOff, sub, "continuous: vx has no long-running task kind; a dev server or watcher never finishes, so it is not a cacheable task and no task can wait for it. Kept with cache: false; run it on its own and make sure no task depends on it")
				tc.Cache = ptr(false)
			}
		case "configurations", "defaultConfiguration":
			b.note("%s dropped: a vx task has one definition; make a separate task for each configuration you run", where(f, sub))
		case "parallelism":
			b.note("%s dropped: vx runs any task alongside others, up to workers", where(f, sub))
		case "syncGenerators", "metadata":
		default:
			b.todo(f, m.keyOff, sub, fmt.Sprintf("unknown target key %q was not translated", m.key))
		}
	}
	if len(env) > 0 {
		tc.Env = &env
	}
	if np == nil {
		if ex := n.get("executor"); ex != nil {
			b.todo(f, ex.off, item+".executor", fmt.Sprintf("targetDefaults set executor %q for every %s target; vx takes a task's command from the project (package.json script or vx.project.json)", ex.str, name))
		}
		return tc
	}
	// The command: the executor of the target, else of targetDefaults.
	executor := ""
	if ex := n.get("executor"); ex != nil && ex.kind == kString {
		executor = ex.str
	} else if c := n.get("command"); c != nil && c.kind == kString {
		executor = "nx:run-commands"
		opts = &node{kind: kObject, members: append([]member{{key: "command", val: c}}, membersOf(opts)...)}
	} else if opts.get("command") != nil || opts.get("commands") != nil {
		executor = "nx:run-commands"
	} else if ex := tr.defaults[name].get("executor"); ex != nil && ex.kind == kString {
		executor = ex.str
	}
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
		if s := opts.get("script"); s != nil && s.kind == kString {
			script = s.str
		}
		if script != name || p.scripts[name] == "" {
			cmd := b.plan.PackageManager + " run " + script
			tc.Command = &cmd
		}
	case slices.Contains(noopExecutors, executor):
		b.note("%s %s uses %s; vx keeps it as an ordering-only node that runs nothing", f.rel, item, executor)
	default:
		off := n.off
		if ex := n.get("executor"); ex != nil {
			off = ex.off
		}
		if p.scripts[name] != "" {
			b.todo(f, off, item+".executor", fmt.Sprintf("executor %q has no vx equivalent; vx runs the package.json %q script (%s) instead — check it does the same", executor, name, p.scripts[name]))
			break
		}
		cmd := fmt.Sprintf("echo 'vx init: the %s executor of %s:%s is not translated; give this task a command in %s/%s' >&2; exit 1", executor, p.name, name, p.dir, workspace.ProjectFile)
		tc.Command = &cmd
		b.todo(f, off, item+".executor", fmt.Sprintf("executor %q has no vx equivalent: write the shell command it runs as this task's command (the proposal fails with a message until then)", executor))
	}
	// Outputs that targetDefaults leave to each project ({options.outputPath},
	// {workspaceRoot}/dist/{projectRoot}) are resolved with this target's options.
	if tc.Outputs == nil {
		if d := tr.defaults[name].get("outputs"); d != nil && needsProject(d) {
			tc.Outputs = tr.outputs(f, item+".outputs (from targetDefaults)", d, np, opts)
		}
	}
	return tc
}

func membersOf(n *node) []member {
	if n == nil {
		return nil
	}
	return n.members
}

func needsProject(outputs *node) bool {
	for _, it := range outputs.items {
		if it.kind == kString && !simpleProjectPath(strings.TrimPrefix(it.str, "!")) {
			return true
		}
	}
	return false
}

// simpleProjectPath reports whether s is "{projectRoot}/path" with no other token.
func simpleProjectPath(s string) bool {
	rest, ok := strings.CutPrefix(s, "{projectRoot}/")
	return ok && !strings.Contains(rest, "{")
}

// runCommands turns nx:run-commands options into one shell command run in
// the project directory: Nx runs them in options.cwd, else the workspace
// root, so the command starts with a cd there.
func (tr *nxTr) runCommands(f *srcFile, item string, opts *node, np *nxProject) (string, map[string]workspace.EnvVar, bool) {
	b := tr.b
	var cmds []string
	parallel := true
	cwd := "."
	var args string
	var execEnv map[string]workspace.EnvVar
	for _, m := range membersOf(opts) {
		sub := item + ".options." + m.key
		switch m.key {
		case "command":
			if m.val.kind == kString {
				cmds = append(cmds, m.val.str)
			}
		case "commands":
			for _, it := range m.val.items {
				switch {
				case it.kind == kString:
					cmds = append(cmds, it.str)
				case it.get("command") != nil && it.get("command").kind == kString:
					cmds = append(cmds, it.get("command").str)
				default:
					b.todo(f, it.off, sub, "a command that is neither a string nor {\"command\": string}; not translated")
				}
			}
		case "parallel":
			parallel = m.val.kind == kBool && m.val.b
		case "cwd":
			if m.val.kind == kString {
				c := strings.ReplaceAll(m.val.str, "{projectRoot}", np.p.dir)
				c = strings.TrimPrefix(strings.ReplaceAll(c, "{workspaceRoot}", ""), "/")
				if c == "" {
					c = "."
				}
				if filepath.IsAbs(m.val.str) || strings.Contains(c, "{") {
					b.todo(f, m.val.off, sub, fmt.Sprintf("cwd %q is not a workspace-relative directory; set the command's directory by hand", m.val.str))
				}
				cwd = path.Clean(c)
			}
		case "args":
			if m.val.kind == kString {
				args = m.val.str
			}
		case "env":
			if m.val.kind == kObject {
				execEnv = map[string]workspace.EnvVar{}
				for _, e := range m.val.members {
					v := e.val.str
					if e.val.kind != kString {
						v = fmt.Sprint(e.val.value())
					}
					execEnv[e.key] = workspace.EnvVar{Value: ptr(v)}
				}
			}
		case "envFile":
			b.todo(f, m.keyOff, sub, "envFile: vx does not load .env files into tasks; declare the variables in exec.env, env or passEnv")
		case "readyWhen":
			b.todo(f, m.keyOff, sub, "readyWhen: the command is a long-running process; vx waits for a task to exit, so run it on its own")
		case "forwardAllArgs", "color", "tty", "__unparsed__", "description", "outputPath", "script":
		default:
			b.todo(f, m.keyOff, sub, fmt.Sprintf("run-commands option %q was not translated", m.key))
		}
	}
	if len(cmds) == 0 {
		b.todo(f, opts.offOr(0), item+".options", "nx:run-commands without a command; not translated")
		return "", nil, false
	}
	toRoot := relSlash(cwd, ".")
	toProject := relSlash(cwd, np.p.dir)
	for i, c := range cmds {
		c = strings.ReplaceAll(c, "{workspaceRoot}", toRoot)
		c = strings.ReplaceAll(c, "{projectRoot}", toProject)
		c = strings.ReplaceAll(c, "{projectName}", cmp.Or(np.nxName, np.p.name))
		if strings.Contains(c, "{args") {
			b.todo(f, opts.offOr(0), item+".options", fmt.Sprintf("command %q reads {args…} that nx passed on its command line; vx passes none — put the values in the command", c))
		}
		if args != "" {
			c += " " + args
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

func (n *node) offOr(def int) int {
	if n == nil {
		return def
	}
	return n.off
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
func (tr *nxTr) dependsOn(f *srcFile, item string, m member) *[]string {
	b := tr.b
	if m.val.kind != kArray {
		b.todo(f, m.val.off, item, fmt.Sprintf("dependsOn: expected a list, found %s; not translated", m.val.kind))
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
	for _, it := range m.val.items {
		switch it.kind {
		case kString:
			s := it.str
			switch {
			case strings.ContainsAny(s, "*?"):
				b.todo(f, it.off, item, fmt.Sprintf("dependsOn %q: vx names tasks exactly (no patterns); list them", s))
			case strings.HasPrefix(s, "^"):
				add(it.off, s, s[1:])
			case strings.Contains(s, ":"):
				proj, target, _ := strings.Cut(s, ":")
				p := tr.lookup(proj)
				if p == nil {
					b.todo(f, it.off, item, fmt.Sprintf("dependsOn %q: %q is not a project of the workspace; dropped", s, proj))
					continue
				}
				add(it.off, workspace.TaskID(p.name, target), target)
			default:
				add(it.off, s, s)
			}
		case kObject:
			target := it.get("target")
			if target == nil || target.kind != kString {
				b.todo(f, it.off, item, "a dependsOn object without a target; not translated")
				continue
			}
			t := target.str
			if it.get("params") != nil {
				b.note("%s: params of the dependency on %s dropped; vx passes no arguments to tasks", where(f, item), t)
			}
			projects := it.get("projects")
			deps := it.get("dependencies")
			switch {
			case deps != nil && deps.kind == kBool && deps.b:
				add(it.off, "^"+t, t)
			case projects == nil:
				add(it.off, t, t)
			case projects.kind == kString && (projects.str == "dependencies" || projects.str == "{dependencies}"):
				add(it.off, "^"+t, t)
			case projects.kind == kString && (projects.str == "self" || projects.str == "{self}"):
				add(it.off, t, t)
			default:
				var names []string
				if projects.kind == kString {
					names = []string{projects.str}
				} else if list, ok := projects.strings(); ok {
					names = list
				}
				for _, name := range names {
					p := tr.lookup(name)
					if p == nil {
						b.todo(f, projects.off, item, fmt.Sprintf("dependsOn projects %q: not a project of the workspace (vx names projects exactly, no tags or patterns); dropped", name))
						continue
					}
					add(it.off, workspace.TaskID(p.name, t), t)
				}
				if names == nil {
					b.todo(f, projects.off, item, "dependsOn projects: expected a project name or a list of them; not translated")
				}
			}
		default:
			b.todo(f, it.off, item, fmt.Sprintf("dependsOn entry: expected a string or an object, found %s", it.kind))
		}
	}
	return &out
}

// inputs expands Nx inputs (named inputs, {projectRoot} and
// {workspaceRoot} paths, {env}) into vx input globs and env names. Input
// covering every project file is vx's default and is left out.
func (tr *nxTr) inputs(f *srcFile, item string, list *node, named map[string]*node) (*[]string, []string) {
	b := tr.b
	var globs, negs, env []string
	all := false
	var walk func(f *srcFile, item string, list *node, depth int)
	expandName := func(f *srcFile, item string, off int, name string, depth int) {
		ni := named[name]
		if ni == nil {
			b.todo(f, off, item, fmt.Sprintf("input %q is not a named input of nx.json or project.json; dropped", name))
			return
		}
		if depth > 20 {
			b.todo(f, off, item, fmt.Sprintf("named input %q refers to itself; dropped", name))
			return
		}
		walk(tr.f, "namedInputs."+name, ni, depth+1)
	}
	path1 := func(f *srcFile, item string, off int, s string) {
		neg := strings.HasPrefix(s, "!")
		p := strings.TrimPrefix(s, "!")
		switch {
		case p == "{projectRoot}/**/*" || p == "{projectRoot}/**" || p == "{projectRoot}":
			if neg {
				b.todo(f, off, item, fmt.Sprintf("input %q excludes every file; dropped", s))
				return
			}
			all = true
		case simpleProjectPath(p):
			g := strings.TrimPrefix(p, "{projectRoot}/")
			if neg {
				negs = appendNew(negs, "!"+g)
			} else {
				globs = appendNew(globs, g)
			}
		case strings.HasPrefix(p, "{workspaceRoot}/"):
			rel := strings.TrimPrefix(p, "{workspaceRoot}/")
			if !neg && b.inGlobalInputs(rel) {
				return
			}
			b.todo(f, off, item, fmt.Sprintf("input %q: a vx task's inputs are files of its project; add %q to globalInputs if every task should re-run when it changes, else drop it", s, rel))
		default:
			b.todo(f, off, item, fmt.Sprintf("input %q: expected {projectRoot}/… or {workspaceRoot}/…; dropped", s))
		}
	}
	walk = func(f *srcFile, item string, list *node, depth int) {
		if list.kind != kArray {
			b.todo(f, list.off, item, fmt.Sprintf("inputs: expected a list, found %s", list.kind))
			return
		}
		for _, it := range list.items {
			switch it.kind {
			case kString:
				s := it.str
				switch {
				case strings.HasPrefix(s, "^"):
					b.note("%s %q: vx does not hash dependencies' files directly; a task's key includes the keys of the tasks it depends on (^build)", where(f, item), s)
				case strings.Contains(s, "{") || strings.Contains(s, "/"):
					path1(f, item, it.off, s)
				default:
					expandName(f, item, it.off, s, depth)
				}
			case kObject:
				switch {
				case it.get("env") != nil:
					if e := it.get("env"); e.kind == kString {
						env = appendNew(env, e.str)
					}
				case it.get("fileset") != nil:
					path1(f, item, it.off, it.get("fileset").str)
				case it.get("input") != nil:
					if it.get("projects") != nil || it.get("dependencies") != nil {
						b.note("%s: the %q input of other projects dropped; a task's key includes the keys of the tasks it depends on", where(f, item), it.get("input").str)
						continue
					}
					expandName(f, item, it.off, it.get("input").str, depth)
				case it.get("runtime") != nil:
					b.todo(f, it.off, item, fmt.Sprintf("runtime input %q: vx does not run commands to compute keys; declare what it reads as env or globalInputs", it.get("runtime").str))
				case it.get("externalDependencies") != nil:
					b.todo(f, it.off, item, "externalDependencies: vx does not hash installed package versions; add the lockfile to globalInputs if these tasks must re-run when it changes")
				case it.get("dependentTasksOutputFiles") != nil:
					b.note("%s dependentTasksOutputFiles dropped: a task's key includes the keys of the tasks it depends on", where(f, item))
				default:
					b.todo(f, it.off, item, "an input object vx does not know; dropped")
				}
			default:
				b.todo(f, it.off, item, fmt.Sprintf("input: expected a string or an object, found %s", it.kind))
			}
		}
	}
	walk(f, item, list, 0)
	if all {
		if len(negs) == 0 {
			b.note("%s cover every file of the project, vx's default (every file git does not ignore); inputs left out", where(f, item))
			return nil, env
		}
		out := append([]string{"**"}, negs...)
		return &out, env
	}
	out := append(append([]string{}, globs...), negs...)
	if len(globs) == 0 {
		b.todo(f, list.off, item, "these inputs name no file of the project, and vx reads an empty list as every file; list the files the task reads")
	}
	return &out, env
}

// outputs translates Nx outputs into globs relative to the project. Paths
// that need a project ({options.outputPath}, {workspaceRoot}/dist/…) are
// resolved when np is given, else left to each project.
func (tr *nxTr) outputs(f *srcFile, item string, list *node, np *nxProject, opts *node) *[]string {
	b := tr.b
	if list.kind != kArray {
		b.todo(f, list.off, item, fmt.Sprintf("outputs: expected a list, found %s", list.kind))
		return nil
	}
	out := []string{}
	for _, it := range list.items {
		if it.kind != kString {
			b.todo(f, it.off, item, fmt.Sprintf("output: expected a string, found %s", it.kind))
			continue
		}
		neg := strings.HasPrefix(it.str, "!")
		s := strings.TrimPrefix(it.str, "!")
		var rel string
		switch {
		case simpleProjectPath(s):
			rel = strings.TrimPrefix(s, "{projectRoot}/")
		case np == nil:
			b.note("%s %q depends on the project; it is resolved in each project.json target of that name", where(f, item), it.str)
			continue
		default:
			p := s
			if strings.HasPrefix(p, "{options.") {
				key, rest, _ := strings.Cut(strings.TrimPrefix(p, "{options."), "}")
				v := opts.get(key)
				if v == nil || v.kind != kString {
					continue // Nx skips outputs whose option is not set.
				}
				p = v.str + rest
			}
			p = strings.ReplaceAll(p, "{projectRoot}", np.p.dir)
			p = strings.TrimPrefix(strings.ReplaceAll(p, "{workspaceRoot}", ""), "/")
			p = path.Clean(p)
			switch {
			case strings.Contains(p, "{"):
				b.todo(f, it.off, item, fmt.Sprintf("output %q: a token vx cannot resolve; dropped", it.str))
				continue
			case p == np.p.dir || strings.HasPrefix(p, np.p.dir+"/"):
				rel = strings.TrimPrefix(strings.TrimPrefix(p, np.p.dir), "/")
			default:
				b.todo(f, it.off, item, fmt.Sprintf("output %q is %s, outside the project: vx keeps and restores outputs inside the project only; make the task write under %s/ (e.g. dist/) and list it here", it.str, p, np.p.dir))
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
