package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vzn/vx/daemon/jsonc"
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
// and the targets it replaces are not written in vx.project.json;
// otherwise a todo proposes it.
type replacement struct {
	vxPlugin
	nxName    string   // as nx.json names it
	target    string   // the target name the Nx plugin gives
	installed bool     // node_modules/<pkg>/package.json exists
	replaced  []string // project#target left to the vx plugin
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
			r := &replacement{vxPlugin: vp, nxName: name, target: vp.def, installed: b.exists("node_modules/" + vp.pkg + "/package.json")}
			if o := opts.Get(vp.option); o != nil && o.Kind == jsonc.String && o.Str != "" {
				r.target = o.Str
			}
			if r.installed {
				b.declarePlugin(r)
			}
			out = append(out, r)
		}
	}
	return out
}

// declarePlugin adds r's vx plugin to vx.workspace.json "plugins", with
// the Nx target's name as its task name when that is not the default.
func (b *builder) declarePlugin(r *replacement) {
	for _, d := range b.ws.Plugins {
		if s, ok := d.(string); ok && s == r.pkg {
			return
		}
	}
	if r.target == r.def {
		b.ws.Plugins = append(b.ws.Plugins, r.pkg)
		return
	}
	b.ws.Plugins = append(b.ws.Plugins, map[string]any{"plugin": r.pkg, "options": map[string]string{"taskName": r.target}})
}

// replacedBy is the installed replacement that infers the target name
// (tgt, from Nx's resolved graph) of a project, or nil: the target has the
// replaced name and runs the vx plugin's program.
func (tr *nxTr) replacedBy(name string, tgt *jsonc.Node) *replacement {
	for _, r := range tr.replacements {
		if !r.installed || r.target != name {
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

// reportReplacements notes what each installed vx plugin took over, and
// proposes each one not installed with a todo at nx.json "plugins".
func (tr *nxTr) reportReplacements(f *srcFile, off int) {
	b := tr.b
	for _, r := range tr.replacements {
		switch {
		case !r.installed:
			b.todo(f, off, "plugins", fmt.Sprintf("%s infers %q targets; vx's plugin %s infers the same tasks from the same configs: run %s add -D %s, then vx init --force: "+
				"vx.workspace.json then declares it in \"plugins\" and those tasks come from it, not from each vx.project.json", r.nxName, r.target, r.pkg, b.pm(), r.pkg))
		case len(r.replaced) > 0:
			b.note("%s's %q targets (%s) are inferred by vx's plugin %s, declared in vx.workspace.json plugins, instead of written in vx.project.json; "+
				"settings nx.json targetDefaults gave them are not carried over: write those in vx.workspace.json tasks.%s", r.nxName, r.target, strings.Join(r.replaced, ", "), r.pkg, r.target)
		default:
			b.note("%s: vx's plugin %s, declared in vx.workspace.json plugins, infers the %q tasks it inferred (vx show lists them)", r.nxName, r.pkg, r.target)
		}
	}
}

// replacedNames lists the Nx plugins of nx.json an installed vx plugin
// replaces.
func (tr *nxTr) replacedNames() []string {
	var out []string
	for _, r := range tr.replacements {
		if r.installed {
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
