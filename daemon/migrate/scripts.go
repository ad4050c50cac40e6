package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vzn/vx/daemon/workspace"
)

// commonScripts are the script names the plain translation configures.
var commonScripts = []string{"build", "test", "lint", "typecheck"}

// scripts proposes tasks from package.json scripts alone: build ordered by
// ^build with guessed outputs, test/lint/typecheck, and long-running
// dev/start kept out of the cache.
func (b *builder) scripts() {
	ws := workspace.ConfigFile
	if len(b.pkgs) == 0 {
		if b.rootPkg == nil || len(b.rootPkg.Scripts) == 0 {
			return
		}
		var names []string
		for _, name := range commonScripts {
			if b.rootScript(name) {
				b.ws.Tasks[workspace.TaskID(workspace.RootProject, name)] = workspace.TaskConfig{Cache: ptr(false)}
				names = append(names, "//#"+name)
			}
		}
		if len(names) > 0 {
			b.plan.Todos = append(b.plan.Todos, Todo{File: ws, Item: "projects", Reason: fmt.Sprintf("this repository has no package-manager workspaces and vx's root is not a "+
				"project, so its scripts became root tasks (%s), uncached because vx hashes no files for root tasks; move the code into a package listed in projects to cache it", strings.Join(names, ", "))})
		}
		return
	}
	hasBuild := b.hasScript("build")
	var made []string
	for _, name := range commonScripts {
		if !b.hasScript(name) {
			continue
		}
		var tc workspace.TaskConfig
		switch name {
		case "build":
			out := []string{"dist/**"}
			if b.scriptMentions("build", "next build") {
				out = append(out, ".next/**", "!.next/cache/**")
			}
			tc.DependsOn = &[]string{"^build"}
			tc.Outputs = &out
			b.plan.Todos = append(b.plan.Todos, Todo{File: ws, Item: "tasks.build.outputs", Reason: fmt.Sprintf("outputs %s is a guess: "+
				"list what build writes in each package (override it per package in vx.project.json), or a cache hit restores nothing", quoteList(out))})
		case "test", "typecheck":
			if hasBuild {
				tc.DependsOn = &[]string{"^build"}
			}
		}
		b.ws.Tasks[name] = tc
		made = append(made, name)
	}
	var after []string
	for _, name := range []string{"test", "typecheck"} {
		if hasBuild && b.hasScript(name) {
			after = append(after, name)
		}
	}
	if len(after) > 0 {
		b.note("%s depend%s on ^build so that workspace dependencies are built first; "+
			"drop it where they read sources directly", strings.Join(after, " and "), map[bool]string{true: "s", false: ""}[len(after) == 1])
	}
	for _, name := range []string{"dev", "start"} {
		if b.hasScript(name) {
			b.ws.Tasks[name] = workspace.TaskConfig{Cache: ptr(false)}
			b.note("tasks.%s: a long-running server is not a cacheable task, so it is kept out of the cache; run it on its own", name)
		}
	}
	others := map[string]bool{}
	for _, p := range b.pkgs {
		for name := range p.scripts {
			if _, ok := b.ws.Tasks[name]; !ok {
				others[name] = true
			}
		}
	}
	if len(others) > 0 {
		b.note("other scripts (%s) run as tasks by name with the defaults: cached, every file of the package an input, no outputs", strings.Join(slices.Sorted(maps.Keys(others)), ", "))
	}
	if len(made) == 0 && len(b.ws.Tasks) == 0 {
		b.note("no package has a build, test, lint or typecheck script; no tasks were proposed")
	}
}

func (b *builder) scriptMentions(task, text string) bool {
	for _, p := range b.pkgs {
		if strings.Contains(p.scripts[task], text) {
			return true
		}
	}
	return false
}
