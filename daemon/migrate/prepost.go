package migrate

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vzn/vx/daemon/workspace"
)

// prePostScripts keeps what the package manager runs around a script:
// `npm run build` runs the package's prebuild before build and postbuild
// after it (yarn 1 too, and pnpm where enable-pre-post-scripts is on).
// turbo runs scripts through the package manager; vx runs a script's own
// text. So a script with a pre or post script of its own runs through the
// package manager ("pnpm run build"), in its package's vx.project.json.
// Where this repository's package manager may or may not run them, a todo
// says so instead.
func (b *builder) prePostScripts() {
	pm := b.plan.PackageManager
	runs, why := b.runsPrePost(pm)
	var through, unsure []string
	for _, p := range b.pkgs {
		for _, name := range slices.Sorted(maps.Keys(p.scripts)) {
			if !hasPrePost(p.scripts, name) || b.commandSet(p.dir, name) {
				continue
			}
			at := p.name + "#" + name
			switch {
			case runs:
				pc := b.project(p.dir)
				if pc.Tasks == nil {
					pc.Tasks = map[string]workspace.TaskConfig{}
				}
				tc := pc.Tasks[name]
				tc.Command = ptr(pm + " run " + name)
				pc.Tasks[name] = tc
				through = append(through, at)
			case why != "":
				unsure = append(unsure, at)
			}
		}
	}
	if len(through) > 0 {
		b.note("%s run as `%s run NAME` (in their vx.project.json), so that their pre and post scripts run around them as %s runs them (%s)", strings.Join(through, ", "), pm, pm, why)
	}
	if len(unsure) > 0 {
		b.todo(nil, 0, "", fmt.Sprintf("the pre and post scripts of %s do not run under vx; %s: if it is on, make each command `%s run NAME` in its vx.project.json", strings.Join(unsure, ", "), why, pm))
		b.plan.Todos[len(b.plan.Todos)-1].File = workspace.ConfigFile
	}
}

// hasPrePost says whether scripts has a pre or post script for name.
func hasPrePost(scripts map[string]string, name string) bool {
	return scripts["pre"+name] != "" || scripts["post"+name] != ""
}

// commandSet says whether the proposed configuration already gives the
// task in dir a command of its own (vx runs it, not the script).
func (b *builder) commandSet(dir, name string) bool {
	if tc, ok := b.ws.Tasks[name]; ok && tc.Command != nil {
		return true
	}
	if pc := b.projects[dir]; pc != nil {
		if tc, ok := pc.Tasks[name]; ok && tc.Command != nil {
			return true
		}
	}
	return false
}

// runsPrePost says whether pm runs pre and post scripts around `pm run
// NAME`, and why; runs false with a reason: it may, and vx cannot tell;
// runs false without: it does not.
func (b *builder) runsPrePost(pm string) (runs bool, why string) {
	switch pm {
	case "npm":
		return true, "npm always does"
	case "yarn":
		field := b.packageManagerField()
		if b.exists(".yarnrc.yml") || (field != "" && !strings.HasPrefix(field, "yarn@1.")) {
			return false, "" // yarn 2 and later run no pre or post scripts
		}
		return true, "yarn 1 does"
	case "pnpm":
		switch b.pnpmPrePostSetting() {
		case "true":
			return true, "enable-pre-post-scripts is on"
		case "false":
			return false, ""
		}
		return false, "pnpm runs them only where enable-pre-post-scripts is on, which this repository does not set"
	}
	return false, pm + " may run them"
}

// packageManagerField is the root package.json's packageManager ("" for none).
func (b *builder) packageManagerField() string {
	if b.rootPkg == nil {
		return ""
	}
	return b.rootPkg.PackageManager
}

// pnpmPrePostSetting is the repository's enable-pre-post-scripts setting,
// from .npmrc or pnpm-workspace.yaml: "true", "false", or "" when unset.
func (b *builder) pnpmPrePostSetting() string {
	for _, f := range []struct{ file, key, sep string }{
		{".npmrc", "enable-pre-post-scripts", "="},
		{"pnpm-workspace.yaml", "enablePrePostScripts", ":"},
	} {
		data, err := os.ReadFile(filepath.Join(b.root, f.file))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(line, f.sep)
			if ok && strings.TrimSpace(k) == f.key && !strings.HasPrefix(line, " ") {
				return strings.Trim(strings.TrimSpace(v), `"'`)
			}
		}
	}
	return ""
}
