package migrate

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/vzn/vx/daemon/workspace"
)

// packageManager names the package manager: package.json's packageManager
// field first, then the lockfile, then pnpm-workspace.yaml; npm for any
// other repository with a package.json.
func (b *builder) packageManager() string {
	if b.rootPkg != nil && b.rootPkg.PackageManager != "" {
		name, _, _ := strings.Cut(b.rootPkg.PackageManager, "@")
		switch name {
		case "npm", "pnpm", "yarn", "bun":
			return name
		}
	}
	for _, lf := range []struct{ file, pm string }{
		{"pnpm-lock.yaml", "pnpm"},
		{"yarn.lock", "yarn"},
		{"bun.lock", "bun"},
		{"bun.lockb", "bun"},
		{"package-lock.json", "npm"},
		{"npm-shrinkwrap.json", "npm"},
		{"pnpm-workspace.yaml", "pnpm"},
	} {
		if b.exists(lf.file) {
			return lf.pm
		}
	}
	if b.rootPkg != nil || b.exists("package.json") {
		return "npm"
	}
	return ""
}

// workspaceGlobs returns the package-manager workspace globs and the file
// they come from.
func (b *builder) workspaceGlobs() ([]string, string) {
	if b.rootPkg != nil && len(b.rootPkg.Workspaces) > 0 {
		var list []string
		if json.Unmarshal(b.rootPkg.Workspaces, &list) == nil {
			return list, "package.json workspaces"
		}
		var obj struct {
			Packages []string `json:"packages"`
		}
		if json.Unmarshal(b.rootPkg.Workspaces, &obj) == nil && len(obj.Packages) > 0 {
			return obj.Packages, "package.json workspaces.packages"
		}
		b.todo(&srcFile{rel: "package.json"}, 0, "workspaces", "package.json workspaces is neither a list of globs nor {\"packages\": [...]}; list the project directories in projects")
	}
	if src, err := os.ReadFile(filepath.Join(b.root, "pnpm-workspace.yaml")); err == nil {
		if globs := pnpmPackages(string(src)); len(globs) > 0 {
			return globs, "pnpm-workspace.yaml"
		}
	}
	return nil, ""
}

// pnpmPackages reads the packages list of pnpm-workspace.yaml, in block
// ("- apps/*") or flow ("[apps/*, libs/*]") style.
func pnpmPackages(src string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(stripYAMLComment(line), " \t\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		t := strings.TrimSpace(line)
		if !indented && !strings.HasPrefix(t, "-") {
			key, rest, _ := strings.Cut(t, ":")
			in = strings.TrimSpace(key) == "packages"
			rest = strings.TrimSpace(rest)
			if in && strings.HasPrefix(rest, "[") {
				for _, v := range strings.Split(strings.Trim(rest, "[]"), ",") {
					if v = unquoteYAML(v); v != "" {
						out = append(out, v)
					}
				}
				in = false
			}
			continue
		}
		if in && strings.HasPrefix(t, "-") {
			if v := unquoteYAML(t[1:]); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

func stripYAMLComment(line string) string {
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

func unquoteYAML(v string) string {
	return strings.Trim(strings.TrimSpace(v), `"'`)
}

// discover finds the workspace packages the globs match, as vx will: the
// directories holding a package.json or vx.project.json, never under
// node_modules or a dot directory; "!" globs exclude.
func (b *builder) discover(globs []string) {
	set := map[string]bool{}
	for _, d := range b.matchDirs(globs) {
		if b.exists(d+"/package.json") || b.exists(d+"/"+workspace.ProjectFile) {
			set[d] = true
		}
	}
	for d := range set {
		b.addPkg(d)
	}
	b.sortPkgs()
}

// matchDirs expands project globs into directories, applying "!" globs,
// and keeps those that may be projects as the workspace loads them.
func (b *builder) matchDirs(globs []string) []string {
	fsys := os.DirFS(b.root)
	set := map[string]bool{}
	for _, g := range globs {
		neg := strings.HasPrefix(g, "!")
		pat := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./"), "/"), "/")
		if !doublestar.ValidatePattern(pat) {
			b.todo(nil, 0, "projects", "projects: "+g+" is not a valid glob")
			b.plan.Todos[len(b.plan.Todos)-1].File = workspace.ConfigFile
			continue
		}
		dirs, _ := doublestar.Glob(fsys, pat)
		for _, d := range dirs {
			if !workspace.ProjectDirAllowed(pat, d) {
				continue
			}
			if st, err := os.Stat(filepath.Join(b.root, d)); err != nil || !st.IsDir() {
				continue
			}
			if neg {
				delete(set, d)
			} else {
				set[d] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// addPkg reads the package in dir (slash-separated, relative).
func (b *builder) addPkg(dir string) *pkg {
	if p := b.byDir[dir]; p != nil {
		return p
	}
	p := &pkg{dir: dir, name: filepath.Base(filepath.FromSlash(dir)), scripts: map[string]string{}}
	if f := b.readJSON(dir + "/package.json"); f != nil {
		var pj pkgJSON
		if err := f.root.Decode(&pj); err != nil {
			b.todo(f, f.root.Off, "", "package.json does not have the shape of a package manifest: "+err.Error())
		} else {
			if pj.Name != "" {
				p.name = pj.Name
			}
			if pj.Scripts != nil {
				p.scripts = pj.Scripts
			}
		}
		p.nx = f.root.Get("nx")
	}
	b.pkgs = append(b.pkgs, p)
	b.byDir[dir] = p
	if _, dup := b.byName[p.name]; !dup {
		b.byName[p.name] = p
	}
	return p
}

// rename gives package p the name vx knows it by.
func (b *builder) rename(p *pkg, name string) {
	if b.byName[p.name] == p {
		delete(b.byName, p.name)
	}
	p.name = name
	b.byName[name] = p
}

func (b *builder) sortPkgs() {
	sort.Slice(b.pkgs, func(i, j int) bool { return b.pkgs[i].dir < b.pkgs[j].dir })
}

// hasScript reports whether any package (or the root, for root tasks)
// defines a script named task.
func (b *builder) hasScript(task string) bool {
	for _, p := range b.pkgs {
		if p.scripts[task] != "" {
			return true
		}
	}
	return false
}

func (b *builder) rootScript(task string) bool {
	return b.rootPkg != nil && b.rootPkg.Scripts[task] != ""
}

// project returns the vx.project.json being built for dir.
func (b *builder) project(dir string) *workspace.ProjectConfig {
	pc := b.projects[dir]
	if pc == nil {
		pc = &workspace.ProjectConfig{}
		b.projects[dir] = pc
	}
	return pc
}
