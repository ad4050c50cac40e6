package migrate

import (
	"fmt"
	"github.com/vzn/vx/daemon/jsonc"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/vzn/vx/daemon/workspace"
)

const (
	turboDefault = "$TURBO_DEFAULT$"
	turboExtends = "$TURBO_EXTENDS$"
	turboRoot    = "$TURBO_ROOT$/"
)

// turboDropped are turbo.json keys that configure turbo itself and have
// no vx counterpart; they are noted, not todos.
var turboDropped = map[string]string{
	"daemon":                                "vx needs no daemon for runs",
	"noUpdateNotifier":                      "vx has no update notifier",
	"dangerouslyDisablePackageManagerCheck": "vx does not check the package manager",
	"cacheDir":                              "vx's cache lives in .vx/cache",
	"remoteCache":                           "not translated: set remoteCache (url, team, signature) in vx.workspace.json; vx reads TURBO_API, TURBO_TOKEN and TURBO_TEAM too (vx docs remoteCache)",
	"futureFlags":                           "turbo-specific feature flags",
	"boundaries":                            "vx does not check package boundaries",
	"telemetry":                             "vx sends no telemetry",
}

// turbo translates turbo.json (v2 "tasks" or v1 "pipeline") and the
// per-package turbo.json files that extend it. It reports whether it did.
func (b *builder) turbo(f *srcFile) bool {
	// Global keys first: task inputs are checked against globalInputs.
	tasks, tasksKey := b.turboGlobals(f)
	// Per-package turbo.json files, read before translating so that their
	// task names count as known.
	pkgFiles := b.readPackageTurbos()
	tr := b.turboTranslator(tasks, pkgFiles)
	b.turboTasks(f, tr, tasksKey, tasks)
	for _, pt := range pkgFiles {
		b.turboPackage(tr, pt.p, pt.f)
	}
	b.noteOrderingOnly(f, tasksKey, tasks)
	return true
}

// turboGlobals translates turbo.json's global keys and returns its tasks
// object (nil when it has none) and the key that held it.
func (b *builder) turboGlobals(f *srcFile) (*jsonc.Node, string) {
	var tasks *jsonc.Node
	tasksKey := "tasks"
	for _, m := range f.root.Members {
		switch m.Key {
		case "$schema":
		case "tasks", "pipeline":
			if tasks != nil {
				b.todo(f, m.KeyOff, m.Key, fmt.Sprintf("turbo.json has both %q and %q; only %q was translated", tasksKey, m.Key, tasksKey))
				continue
			}
			if m.Val.Kind != jsonc.Object {
				b.todo(f, m.Val.Off, m.Key, fmt.Sprintf("%s: expected an object of tasks, found %s", m.Key, m.Val.Kind))
				continue
			}
			tasks, tasksKey = m.Val, m.Key
			if m.Key == "pipeline" {
				b.note("turbo.json uses turbo 1.x's \"pipeline\" key; it was read as turbo 2's \"tasks\"")
			}
		case "globalDependencies":
			list, ok := b.strList(f, m)
			if !ok {
				continue
			}
			for i, s := range list {
				s = strings.TrimPrefix(s, turboRoot)
				if strings.HasPrefix(s, "!") {
					b.todo(f, m.Val.Items[i].Off, m.Key, fmt.Sprintf("globalDependencies %q: vx's globalInputs has no exclusions; narrow the positive globs instead", s))
					continue
				}
				b.ws.GlobalInputs = appendNew(b.ws.GlobalInputs, s)
			}
		case "globalEnv":
			b.ws.Env = append(b.ws.Env, b.envNames(f, m, m.Key, nil)...)
		case "globalPassThroughEnv":
			b.ws.PassEnv = append(b.ws.PassEnv, b.envNames(f, m, m.Key, nil)...)
		case "globalDotEnv":
			b.todo(f, m.KeyOff, m.Key, "vx does not load .env files into tasks, and hashes only files git does not ignore: declare the variables in env (hashed) or passEnv, "+
				"and add tracked env files to globalInputs")
		case "envMode":
			if m.Val.Kind == jsonc.String && m.Val.Str == "strict" {
				b.note("envMode strict: vx behaves that way always (tasks see only declared variables and a small base set)")
			} else {
				b.todo(f, m.Val.Off, m.Key, "envMode: vx passes a task only the variables in env and passEnv (plus PATH, HOME and a small base set), as turbo's strict mode does; "+
					"list any other variable the tasks read in passEnv")
			}
		case "concurrency":
			b.concurrency(f, m)
		case "ui":
			b.turboUI(f, m)
		case "extends":
			b.todo(f, m.KeyOff, m.Key, "the root turbo.json cannot extend another config; vx.workspace.json has no extends")
		default:
			b.otherKey(f, m, f.rel, turboDropped)
		}
	}
	return tasks, tasksKey
}

// turboConfig names the turbo configuration in dir ("" for the root):
// turbo.json, or turbo.jsonc, which turbo reads alike; "" when neither.
// Turbo refuses a directory with both: turbo.json is translated then, and
// a todo says the other was not.
func (b *builder) turboConfig(dir string) string {
	jsonName, jsoncName := path.Join(dir, "turbo.json"), path.Join(dir, "turbo.jsonc")
	hasJSON, hasJSONC := b.exists(jsonName), b.exists(jsoncName)
	switch {
	case hasJSON && hasJSONC:
		b.todo(&srcFile{rel: jsoncName}, 0, "", "turbo.json is beside it and turbo refuses to run with both: only turbo.json was translated; remove one")
		return jsonName
	case hasJSON:
		return jsonName
	case hasJSONC:
		return jsoncName
	}
	return ""
}

// pkgTurbo is a package and its turbo.json (or turbo.jsonc).
type pkgTurbo struct {
	p *pkg
	f *srcFile
}

// readPackageTurbos reads the turbo.json of every package that has one.
func (b *builder) readPackageTurbos() []pkgTurbo {
	var pkgFiles []pkgTurbo
	for _, p := range b.pkgs {
		if name := b.turboConfig(p.dir); name == "" {
			continue
		} else if pf := b.readJSON(name); pf != nil {
			pkgFiles = append(pkgFiles, pkgTurbo{p, pf})
		}
	}
	return pkgFiles
}

// turboTranslator collects the task names the root and package turbo.json
// files declare, for checking dependsOn against.
func (b *builder) turboTranslator(tasks *jsonc.Node, pkgFiles []pkgTurbo) *turboTr {
	known := map[string]bool{}
	rootTasks := map[string]bool{}
	if tasks != nil {
		for _, m := range tasks.Members {
			proj, name, ok := workspace.SplitTaskID(m.Key)
			if !ok {
				name = m.Key
			} else if proj == workspace.RootProject {
				rootTasks[name] = true
			}
			known[name] = true
		}
	}
	for _, pt := range pkgFiles {
		for _, key := range []string{"tasks", "pipeline"} {
			if t := pt.f.root.Get(key); t != nil && t.Kind == jsonc.Object {
				for _, m := range t.Members {
					known[m.Key] = true
				}
			}
		}
	}
	return &turboTr{b: b, known: known, rootTasks: rootTasks}
}

// turboTasks translates the root turbo.json's tasks into vx.workspace.json.
func (b *builder) turboTasks(f *srcFile, tr *turboTr, tasksKey string, tasks *jsonc.Node) {
	if tasks != nil {
		for _, m := range tasks.Members {
			item := tasksKey + "." + m.Key
			proj, _, isID := workspace.SplitTaskID(m.Key)
			if strings.Contains(m.Key, "#") && !isID {
				b.todo(f, m.KeyOff, item, fmt.Sprintf("%q is not a task name (use build, web#build or //#lint); not translated", m.Key))
				continue
			}
			if isID && proj != workspace.RootProject && b.byName[proj] == nil {
				b.todo(f, m.KeyOff, item, fmt.Sprintf("task %q names package %q, which is not a workspace package%s; not translated", m.Key, proj, workspace.CloseHint(proj, b.pkgNames())))
				continue
			}
			if b.notObject(f, m.Val, item) {
				continue
			}
			isRoot := isID && proj == workspace.RootProject
			tc := tr.task(f, item, m.Val, nil, isRoot)
			if isRoot && (tc.Cache == nil || *tc.Cache) {
				tc.Cache = ptr(false)
				b.todo(f, m.KeyOff, item, fmt.Sprintf("root task %s: vx does not hash files for root tasks yet, so a cached one would replay after its files change; kept with cache: false", m.Key))
			}
			b.ws.Tasks[m.Key] = tc
		}
		b.packageTaskOverrides(f, tasksKey, tasks)
	} else {
		b.todo(f, 0, "tasks", "turbo.json declares no tasks; tasks were proposed from nothing — declare them in vx.workspace.json")
	}
}

// noteOrderingOnly notes the ordering-only tasks: configured, but no
// script anywhere.
func (b *builder) noteOrderingOnly(f *srcFile, tasksKey string, tasks *jsonc.Node) {
	for _, m := range tasksMembers(tasks) {
		proj, name, isID := workspace.SplitTaskID(m.Key)
		switch {
		case isID && proj == workspace.RootProject:
			if !b.rootScript(name) {
				b.note("%s %s.%s: the root package.json has no %q script, so this root task runs nothing (vx keeps it as an ordering node)", f.rel, tasksKey, m.Key, name)
			}
		case !isID && !b.hasScript(m.Key) && !b.overrideHasCommand(m.Key):
			b.note("%s %s.%s: no package has a %q script; vx keeps it as a no-op node that runs nothing, and tasks that depend on it still order as in turbo", f.rel, tasksKey, m.Key, m.Key)
		}
	}
}

func tasksMembers(n *jsonc.Node) []jsonc.Member {
	if n == nil {
		return nil
	}
	return n.Members
}

// packageTaskOverrides makes "web#build" replace "build" for web, as turbo
// does, rather than merge over it as vx would: each field the generic task
// sets and the package task does not is set back to its default.
func (b *builder) packageTaskOverrides(f *srcFile, tasksKey string, tasks *jsonc.Node) {
	for _, m := range tasks.Members {
		proj, name, ok := workspace.SplitTaskID(m.Key)
		if !ok || proj == workspace.RootProject {
			continue
		}
		spec, ok1 := b.ws.Tasks[m.Key]
		gen, ok2 := b.ws.Tasks[name]
		if !ok1 || !ok2 {
			continue
		}
		var reset []string
		empty := func(dst **[]string, src *[]string, field string) {
			if *dst == nil && src != nil && len(*src) > 0 {
				*dst = &[]string{}
				reset = append(reset, field)
			}
		}
		empty(&spec.DependsOn, gen.DependsOn, "dependsOn")
		empty(&spec.Inputs, gen.Inputs, "inputs")
		empty(&spec.Outputs, gen.Outputs, "outputs")
		empty(&spec.Env, gen.Env, "env")
		empty(&spec.PassEnv, gen.PassEnv, "passEnv")
		if spec.Cache == nil && gen.Cache != nil && !*gen.Cache {
			spec.Cache = ptr(true)
			reset = append(reset, "cache")
		}
		if len(reset) > 0 {
			b.ws.Tasks[m.Key] = spec
			b.note("%s %s.%s replaces %s for %s in turbo; vx merges it over %s, so %s set back to the default", f.rel, tasksKey, m.Key, name, proj, name, strings.Join(reset, ", "+
				"")+map[bool]string{true: " is", false: " are"}[len(reset) == 1])
		}
	}
}

func (b *builder) overrideHasCommand(task string) bool {
	for _, pc := range b.projects {
		if tc, ok := pc.Tasks[task]; ok && tc.Command != nil {
			return true
		}
	}
	return false
}

// turboPackage translates a package's turbo.json into its vx.project.json.
func (b *builder) turboPackage(tr *turboTr, p *pkg, f *srcFile) {
	pc := b.project(p.dir)
	extendsRoot := false
	for _, m := range f.root.Members {
		switch m.Key {
		case "$schema":
		case "extends":
			list, ok := b.strList(f, m)
			if ok && slices.Equal(list, []string{"//"}) {
				extendsRoot = true
			} else if ok {
				b.todo(f, m.Val.Off, m.Key, fmt.Sprintf("extends %q: vx.project.json always extends vx.workspace.json and nothing else; merge the other configs by hand", list))
				extendsRoot = true
			}
		case "tasks", "pipeline":
			if m.Val.Kind != jsonc.Object {
				b.todo(f, m.Val.Off, m.Key, fmt.Sprintf("%s: expected an object of tasks, found %s", m.Key, m.Val.Kind))
				continue
			}
			for _, t := range m.Val.Members {
				item := m.Key + "." + t.Key
				if strings.Contains(t.Key, "#") {
					b.todo(f, t.KeyOff, item, fmt.Sprintf("%q: a package turbo.json names tasks without a package; not translated", t.Key))
					continue
				}
				if b.notObject(f, t.Val, item) {
					continue
				}
				var base *workspace.TaskConfig
				if g, ok := b.ws.Tasks[t.Key]; ok {
					base = &g
				}
				if pc.Tasks == nil {
					pc.Tasks = map[string]workspace.TaskConfig{}
				}
				pc.Tasks[t.Key] = tr.task(f, item, t.Val, base, false)
			}
		case "tags":
			if list, ok := b.strList(f, m); ok {
				pc.Tags = list
			}
		default:
			if why, ok := turboDropped[m.Key]; ok {
				b.note("%s %s dropped: %s", f.rel, m.Key, why)
				continue
			}
			b.todo(f, m.KeyOff, m.Key, fmt.Sprintf("unknown key %q in a package turbo.json was not translated", m.Key))
		}
	}
	if !extendsRoot {
		b.todo(f, f.root.Off, "extends", `a package turbo.json must say "extends": ["//"]; its tasks were still read as overrides of the root's`)
	}
	b.note("%s: its task overrides are in %s/%s; vx merges them over vx.workspace.json field by field, as turbo's extends does", f.rel, p.dir, workspace.ProjectFile)
}

type turboTr struct {
	b         *builder
	known     map[string]bool
	rootTasks map[string]bool
}

func (tr *turboTr) knows(name string) bool { return tr.known[name] || tr.b.hasScript(name) }

// task translates one turbo task; base is the task it extends (for
// $TURBO_EXTENDS$), isRoot whether it is a //#name task.
func (tr *turboTr) task(f *srcFile, path string, n *jsonc.Node, base *workspace.TaskConfig, isRoot bool) workspace.TaskConfig {
	b := tr.b
	var tc workspace.TaskConfig
	var env []string
	envSet := false
	noCache := func() {
		tc.Cache = ptr(false)
	}
	for _, m := range n.Members {
		item := path + "." + m.Key
		switch m.Key {
		case "dependsOn":
			if out, ok := tr.dependsOn(f, item, m, base, &env, &envSet); ok {
				tc.DependsOn = out
			}
		case "inputs":
			tc.Inputs = tr.inputs(f, item, m, base, isRoot)
		case "outputs":
			if out, ok := tr.outputs(f, item, m, base, isRoot); ok {
				tc.Outputs = out
			}
		case "cache":
			if m.Val.Kind != jsonc.Bool {
				b.todo(f, m.Val.Off, item, fmt.Sprintf("cache: expected true or false, found %s", m.Val.Kind))
				continue
			}
			if !m.Val.Bool || tc.Cache == nil {
				tc.Cache = ptr(m.Val.Bool)
			}
		case "env":
			var from []string
			if base != nil && base.Env != nil {
				from = *base.Env
			}
			env, envSet = append(env, b.envNames(f, m, item, from)...), true
		case "passThroughEnv":
			var from []string
			if base != nil && base.PassEnv != nil {
				from = *base.PassEnv
			}
			pe := b.envNames(f, m, item, from)
			tc.PassEnv = &pe
		case "persistent":
			if m.Val.Kind == jsonc.Bool && m.Val.Bool {
				b.todo(f, m.KeyOff, item, "persistent: vx has no long-running task kind; a dev server or watcher never finishes, "+
					"so it is not a cacheable task and no task can wait for it. Kept with cache: false; "+
					"run it on its own (vx run "+taskName(path)+") or directly with the package manager, and make sure no task depends on it")
				noCache()
			}
		case "interactive":
			if m.Val.Kind == jsonc.Bool && m.Val.Bool {
				b.todo(f, m.KeyOff, item, "interactive: vx does not connect a task to the terminal's input; kept with cache: false — run it directly with the package manager when it needs input")
				noCache()
			}
		case "interruptible":
			b.note("%s dropped: vx does not restart tasks on change", where(f, item))
		case "outputLogs", "outputMode":
			b.note("%s dropped: vx prints every task's output as it comes, replays it on a cache hit, and keeps it for vx last --log", where(f, item))
		case "dotEnv":
			b.todo(f, m.KeyOff, item, "dotEnv: vx does not load .env files into tasks; declare the variables in env or passEnv, and list tracked env files in inputs")
		case "with":
			b.todo(f, m.KeyOff, item, "with: vx does not start sibling tasks alongside a task; run them together (vx run a b) or start them yourself")
		default:
			b.todo(f, m.KeyOff, item, fmt.Sprintf("unknown task key %q was not translated", m.Key))
		}
	}
	if envSet {
		tc.Env = &env
	}
	return tc
}

// dependsOn translates a task's dependsOn, dropping dependencies on tasks
// nobody declares; turbo 1.x's $VAR entries are added to env. It reports
// false when the value is not a list of strings.
func (tr *turboTr) dependsOn(f *srcFile, item string, m jsonc.Member, base *workspace.TaskConfig, env *[]string, envSet *bool) (*[]string, bool) {
	b := tr.b
	list, ok := b.strList(f, m)
	if !ok {
		return nil, false
	}
	out := []string{}
	for i, d := range list {
		off := m.Val.Items[i].Off
		switch {
		case d == turboExtends:
			if base != nil && base.DependsOn != nil {
				out = append(out, *base.DependsOn...)
			}
		case strings.HasPrefix(d, "$"):
			*env, *envSet = appendNew(*env, d[1:]), true
			b.note("%s %q: turbo 1.x's env dependency became env %q", where(f, item), d, d[1:])
		case strings.HasPrefix(d, "^"):
			if !tr.knows(d[1:]) {
				b.todo(f, off, item, fmt.Sprintf("dependsOn %q: no task or script is named %q anywhere; dropped", d, d[1:]))
				continue
			}
			out = append(out, d)
		case strings.Contains(d, "#"):
			proj, name, ok := workspace.SplitTaskID(d)
			switch {
			case !ok:
				b.todo(f, off, item, fmt.Sprintf("dependsOn %q is missing a half (use package#task); dropped", d))
				continue
			case proj == workspace.RootProject && !tr.rootTasks[name]:
				b.todo(f, off, item, fmt.Sprintf("dependsOn %q: root task %q is not declared (declare \"//#%s\" in tasks); dropped", d, name, name))
				continue
			case proj != workspace.RootProject && b.byName[proj] == nil:
				b.todo(f, off, item, fmt.Sprintf("dependsOn %q: %q is not a workspace package%s; dropped", d, proj, workspace.CloseHint(proj, b.pkgNames())))
				continue
			case proj != workspace.RootProject && !tr.knows(name):
				b.todo(f, off, item, fmt.Sprintf("dependsOn %q: no task or script is named %q; dropped", d, name))
				continue
			}
			out = append(out, d)
		default:
			if !tr.knows(d) {
				b.todo(f, off, item, fmt.Sprintf("dependsOn %q: no task or script is named %q anywhere; dropped", d, d))
				continue
			}
			out = append(out, d)
		}
	}
	return &out, true
}

// outputs translates a task's outputs; $TURBO_ROOT$ globs are kept only
// for root tasks. It reports false when the value is not a list of strings.
func (tr *turboTr) outputs(f *srcFile, item string, m jsonc.Member, base *workspace.TaskConfig, isRoot bool) (*[]string, bool) {
	b := tr.b
	list, ok := b.strList(f, m)
	if !ok {
		return nil, false
	}
	out := []string{}
	for i, s := range list {
		if s == turboExtends {
			if base != nil && base.Outputs != nil {
				out = append(out, *base.Outputs...)
			}
			continue
		}
		neg := strings.HasPrefix(s, "!")
		g := strings.TrimPrefix(s, "!")
		if strings.HasPrefix(g, turboRoot) {
			if !isRoot {
				b.todo(f, m.Val.Items[i].Off, item, fmt.Sprintf("outputs %q: vx restores outputs inside the package only; make the task write inside its package, or move it to a root task (//#name)", s))
				continue
			}
			g = strings.TrimPrefix(g, turboRoot)
		}
		if neg {
			g = "!" + g
		}
		out = append(out, g)
	}
	return &out, true
}

// inputs translates turbo inputs. $TURBO_DEFAULT$ is vx's default (every
// file of the project git does not ignore): alone it leaves inputs out,
// and with other globs it becomes "**".
func (tr *turboTr) inputs(f *srcFile, item string, m jsonc.Member, base *workspace.TaskConfig, isRoot bool) *[]string {
	b := tr.b
	list, ok := b.strList(f, m)
	if !ok {
		return nil
	}
	out := []string{}
	hasDefault, positives := false, []string{}
	for i, s := range list {
		off := m.Val.Items[i].Off
		if s == turboExtends {
			if base != nil && base.Inputs != nil {
				out = append(out, *base.Inputs...)
				for _, g := range *base.Inputs {
					if g == "**" {
						hasDefault = true
					} else if !strings.HasPrefix(g, "!") {
						positives = append(positives, g)
					}
				}
			}
			continue
		}
		if s == turboDefault {
			hasDefault = true
			out = appendNew(out, "**")
			continue
		}
		neg := strings.HasPrefix(s, "!")
		g := strings.TrimPrefix(s, "!")
		if strings.HasPrefix(g, turboRoot) {
			rel := strings.TrimPrefix(g, turboRoot)
			switch {
			case isRoot:
				g = rel
			case !neg && b.inGlobalInputs(rel):
				b.note("%s %q dropped: %s is in globalInputs, which joins every task's key", where(f, item), s, rel)
				continue
			default:
				b.todo(f, off, item, fmt.Sprintf("inputs %q: a vx task's inputs are files of its project; add %q to globalInputs if every task should re-run when it changes, else drop it", s, rel))
				continue
			}
		}
		if neg {
			g = "!" + g
		} else {
			positives = append(positives, g)
		}
		out = append(out, g)
	}
	switch {
	case hasDefault && len(positives) == 0 && len(out) == 1:
		b.note("%s is only $TURBO_DEFAULT$, which is vx's default (every file of the project git does not ignore); inputs left out", where(f, item))
		return nil
	case hasDefault && len(positives) == 0:
		b.note("%s: $TURBO_DEFAULT$ with exclusions became \"**\" (every file of the project git does not ignore) with the same ! globs", where(f, item))
	case hasDefault:
		b.todo(f, m.Val.Off, item, fmt.Sprintf("inputs mix $TURBO_DEFAULT$ (now \"**\") with %s: vx hashes only files git does not ignore, "+
			"so these add nothing unless git ignores them (e.g. .env), and such files are not hashed — track them or drop them", quoteList(positives)))
	}
	return &out
}

func (b *builder) inGlobalInputs(rel string) bool {
	return slices.Contains(b.ws.GlobalInputs, rel)
}

// envNames reads a list of variable names; $TURBO_EXTENDS$ takes from.
// Patterns become todos: vx names variables exactly.
func (b *builder) envNames(f *srcFile, m jsonc.Member, item string, from []string) []string {
	list, ok := b.strList(f, m)
	if !ok {
		return nil
	}
	out := []string{}
	for i, s := range list {
		switch {
		case s == turboExtends:
			out = append(out, from...)
		case strings.ContainsAny(s, "*!"):
			b.todo(f, m.Val.Items[i].Off, item, fmt.Sprintf("%q: vx names variables exactly (no wildcards or exclusions); list the variables the tasks read", s))
		default:
			out = appendNew(out, s)
		}
	}
	return out
}

func (b *builder) concurrency(f *srcFile, m jsonc.Member) {
	text := m.Val.Str
	if m.Val.Kind == jsonc.Number || m.Val.Kind == jsonc.String {
		if n, err := strconv.Atoi(strings.TrimSpace(text)); err == nil && n > 0 {
			b.ws.Workers = n
			return
		}
	}
	b.todo(f, m.Val.Off, m.Key, fmt.Sprintf("concurrency %s: vx's workers is a number of tasks at once (default: one per CPU); set it if the default does not suit", strconv.Quote(text)))
}

// turboUI keeps turbo.json's ui ("tui" or "stream"), which vx's ui names
// the same way.
func (b *builder) turboUI(f *srcFile, m jsonc.Member) {
	if m.Val.Kind == jsonc.String && workspace.CheckUI(m.Val.Str) == nil {
		b.ws.UI = m.Val.Str
		return
	}
	b.todo(f, m.Val.Off, m.Key, fmt.Sprintf("ui: expected \"tui\" or \"stream\", found %s; vx run shows the live view on a terminal (set ui to \"stream\" for task lines alone)", m.Val.Kind))
}

// strList reads a member holding an array of strings, or adds a todo.
func (b *builder) strList(f *srcFile, m jsonc.Member) ([]string, bool) {
	list, ok := m.Val.Strings()
	if !ok {
		b.todo(f, m.Val.Off, m.Key, fmt.Sprintf("%s: expected a list of strings, found %s; not translated", m.Key, m.Val.Kind))
	}
	return list, ok
}

func (b *builder) pkgNames() []string {
	out := make([]string, 0, len(b.pkgs))
	for _, p := range b.pkgs {
		out = append(out, p.name)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// where names an item of a file for a note.
func where(f *srcFile, item string) string { return f.rel + " " + item }

// taskName is the task of an item path such as "tasks.dev".
func taskName(path string) string {
	_, name, _ := strings.Cut(path, ".")
	return name
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
