package migrate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/vzn/vx/daemon/jsonc"
	"github.com/vzn/vx/daemon/plugins"
)

// vxPlugin is a vx plugin (npm/vx-plugin-* in vx's repository) that infers
// the tasks an Nx plugin infers targets for.
type vxPlugin struct {
	nx      []string // the Nx plugin's names in nx.json "plugins"
	pkg     string   // the vx plugin's npm package
	option  string   // the Nx plugin's option naming its target
	def     string   // the target's name without that option
	command string   // the program the inferred target runs
}

var vxPlugins = []vxPlugin{
	{[]string{"@nx/vite/plugin", "@nx/vitest", "@nx/vitest/plugin"}, "@vzn/vx-plugin-vitest", "testTargetName", "test", "vitest"},
	{[]string{"@nx/eslint/plugin"}, "@vzn/vx-plugin-eslint", "targetName", "lint", "eslint"},
}

// replacement is one Nx plugin of nx.json whose targets a vx plugin
// infers: installed at the root, vx.workspace.json declares the vx plugin
// (with the registration's include and exclude) and the targets it
// replaces are not written in vx.project.json; otherwise a todo proposes
// it, or says why it is not declared (refused).
type replacement struct {
	vxPlugin
	nxName    string // as nx.json names it
	target    string // the target name the Nx plugin gives
	installed bool   // node_modules/<pkg>/package.json exists
	// declared: vx.workspace.json declares the vx plugin for it.
	declared bool
	scope    plugins.Scope // the registration's include and exclude, as vx globs
	refused  string        // why an installed vx plugin is not declared
	off      int           // the registration's offset in nx.json
	replaced []string      // project#target left to the vx plugin
}

// nxReplacements reads nx.json "plugins" (items) and returns the ones a vx
// plugin replaces, declaring each installed vx plugin in vx.workspace.json.
func (b *builder) nxReplacements(items []*jsonc.Node) []*replacement {
	var out []*replacement
	for _, it := range items {
		name, opts := it.Str, (*jsonc.Node)(nil)
		if it.Kind != jsonc.String {
			if p := it.Get("plugin"); p != nil && p.Kind == jsonc.String {
				name, opts = p.Str, it.Get("options")
			}
		}
		for _, vp := range vxPlugins {
			if !slices.Contains(vp.nx, name) {
				continue
			}
			r := &replacement{vxPlugin: vp, nxName: name, target: vp.def, installed: b.exists("node_modules/" + vp.pkg + "/package.json"), off: it.Off}
			if o := opts.Get(vp.option); o != nil && o.Kind == jsonc.String && o.Str != "" {
				r.target = o.Str
			}
			if r.installed {
				b.declarePlugin(r, it, out)
			}
			out = append(out, r)
		}
	}
	return out
}

// declarePlugin adds r's vx plugin to vx.workspace.json "plugins", with
// the Nx target's name as its task name when that is not the default and
// the scope of the registration it (the nx.json item) is. A scope vx
// globs cannot say, or a vx plugin an earlier replacement (of before)
// declared, leaves it undeclared, saying why (r.refused).
func (b *builder) declarePlugin(r *replacement, it *jsonc.Node, before []*replacement) {
	for _, o := range before {
		if o.declared && o.pkg == r.pkg {
			r.refused = fmt.Sprintf("nx.json registers %s again (%q targets): vx declares a plugin once, so vx's plugin %s infers the targets of the first registration only, "+
				"and these are written in vx.project.json; to have the plugin infer them too, merge the two registrations' include and exclude into its declaration in vx.workspace.json", r.nxName, r.target, r.pkg)
			return
		}
	}
	var err error
	if r.scope, err = nxScope(it); err != nil {
		r.refused = fmt.Sprintf("%s's %v: vx's plugin %s is not declared, so that it infers no task Nx did not, and the %q targets are written in vx.project.json; "+
			"to have the plugin infer them, declare it in vx.workspace.json plugins with include and exclude globs that say the same (docs/plugins.md)", r.nxName, err, r.pkg, r.target)
		return
	}
	r.declared = true
	if r.target == r.def && r.scope.Empty() {
		b.ws.Plugins = append(b.ws.Plugins, r.pkg)
		return
	}
	d := map[string]any{"plugin": r.pkg}
	if r.target != r.def {
		d["options"] = map[string]string{"taskName": r.target}
	}
	if len(r.scope.Include) > 0 {
		d["include"] = r.scope.Include
	}
	if len(r.scope.Exclude) > 0 {
		d["exclude"] = r.scope.Exclude
	}
	b.ws.Plugins = append(b.ws.Plugins, d)
}

// nxScope reads an nx.json plugin registration's include and exclude as
// vx globs, or says which glob vx cannot say and why.
func nxScope(it *jsonc.Node) (plugins.Scope, error) {
	var sc plugins.Scope
	for _, l := range []struct {
		key string
		to  *[]string
	}{{"include", &sc.Include}, {"exclude", &sc.Exclude}} {
		n := it.Get(l.key)
		if n == nil {
			continue
		}
		globs, ok := n.Strings()
		if !ok {
			return sc, fmt.Errorf("%s: expected a list of globs, found %s", l.key, n.Kind)
		}
		if len(globs) > plugins.MaxScopeGlobs {
			return sc, fmt.Errorf("%s: %d globs, more than a vx declaration takes (%d)", l.key, len(globs), plugins.MaxScopeGlobs)
		}
		for _, g := range globs {
			v, err := nxScopeGlob(g)
			if err != nil {
				return sc, fmt.Errorf("%s %q: %v", l.key, g, err)
			}
			*l.to = append(*l.to, v)
		}
	}
	return sc, nil
}

// braceRange finds a numeric brace range ("{1..3}"), which minimatch
// expands and doublestar reads as a literal alternative.
var braceRange = regexp.MustCompile(`\{[^{}]*\.\.[^{}]*\}`)

// nxScopeGlob translates one of Nx's include or exclude globs
// (minimatch, dot files matched) into a vx glob (doublestar, which
// matches dot files too): extended glob groups become brace
// alternatives; what doublestar cannot say is refused.
func nxScopeGlob(g string) (string, error) {
	neg := strings.HasPrefix(g, "!")
	p := strings.TrimPrefix(g, "!")
	switch {
	case braceRange.MatchString(p):
		return "", fmt.Errorf("a numeric brace range, which vx globs do not expand")
	case strings.Contains(p, "[:"):
		return "", fmt.Errorf("a POSIX character class, which vx globs do not have")
	case strings.HasPrefix(p, "#"):
		return "", fmt.Errorf("a minimatch comment, which matches nothing")
	}
	if strings.Contains(p, "(") {
		t, ok := extglob(p)
		if !ok {
			return "", fmt.Errorf("a negated or unbalanced extended glob group, which vx globs cannot say")
		}
		p = t
	}
	if neg {
		p = "!" + p
	}
	if err := plugins.CheckScopeGlob(p); err != nil {
		return "", fmt.Errorf("%v (Nx matches workspace-relative paths as vx does, so it matched nothing with it either)", err)
	}
	return p, nil
}

// replacedBy is the declared replacement that infers the target name
// (tgt, from Nx's resolved graph) of the project at root, or nil: the
// target has the replaced name and runs the vx plugin's program, and the
// project is in the declaration's scope.
func (tr *nxTr) replacedBy(name, root string, tgt *jsonc.Node) *replacement {
	for _, r := range tr.replacements {
		if !r.declared || r.target != name || !r.scope.AdmitsProject(root) {
			continue
		}
		cmd := tgt.Get("options").Get("command")
		if cmd == nil {
			cmd = tgt.Get("command")
		}
		if cmd != nil && cmd.Kind == jsonc.String {
			if f := strings.Fields(cmd.Str); len(f) > 0 && f[0] == r.command {
				return r
			}
		}
	}
	return nil
}

// replacedDependsOn is the dependsOn (nil when none) of a target a vx
// plugin replaces (tgt, from Nx's resolved graph). Nx's plugins infer
// none for test and lint targets: it is the workspace's, from
// targetDefaults or the project's config ("^build" for tests importing
// their dependencies' built output), and the vx plugin cannot know it.
func (tr *nxTr) replacedDependsOn(f *srcFile, item string, tgt *jsonc.Node) *[]string {
	for _, m := range membersOf(tgt) {
		if m.Key != "dependsOn" {
			continue
		}
		if deps := tr.dependsOn(f, item+".dependsOn", m); deps != nil && len(*deps) > 0 {
			return deps
		}
	}
	return nil
}

// reportReplacements notes what each installed vx plugin took over, and
// proposes each one not installed with a todo at nx.json "plugins".
func (tr *nxTr) reportReplacements(f *srcFile, off int) {
	b := tr.b
	for _, r := range tr.replacements {
		switch {
		case r.refused != "":
			b.todo(f, r.off, "plugins", r.refused)
		case !r.installed:
			b.todo(f, off, "plugins", fmt.Sprintf("%s infers %q targets; vx's plugin %s infers the same tasks from the same configs: run %s add -D %s, then vx init --force: "+
				"vx.workspace.json then declares it in \"plugins\" and those tasks come from it, not from each vx.project.json", r.nxName, r.target, r.pkg, b.pm(), r.pkg))
		case len(r.replaced) > 0:
			b.note("%s's %q targets (%s) are inferred by vx's plugin %s, declared in vx.workspace.json plugins, instead of written in vx.project.json; "+
				"their dependsOn is kept in vx.project.json; the other settings nx.json targetDefaults gave them (inputs, outputs, options) are not carried over: write those in vx.workspace.json tasks.%s", r.nxName, r.target, strings.Join(r.replaced, ", "), r.pkg, r.target)
		default:
			b.note("%s: vx's plugin %s, declared in vx.workspace.json plugins, infers the %q tasks it inferred (vx show lists them)", r.nxName, r.pkg, r.target)
		}
	}
}

// replacedNames lists the Nx plugins of nx.json a declared vx plugin
// replaces.
func (tr *nxTr) replacedNames() []string {
	var out []string
	for _, r := range tr.replacements {
		if r.declared {
			out = append(out, r.nxName)
		}
	}
	return out
}

// pm is the workspace's package manager, npm when it has none.
func (b *builder) pm() string {
	if b.plan.PackageManager == "" {
		return "npm"
	}
	return b.plan.PackageManager
}
