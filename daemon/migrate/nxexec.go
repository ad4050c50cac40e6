package migrate

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/vzn/vx/daemon/jsonc"
)

// nxExecutor is what vx knows of an Nx executor: the command it runs in
// the project directory, built from the options named in opts.
type nxExecutor struct {
	names []string
	base  string
	// opts maps an option to how it joins the command: a flag taking the
	// value (a workspace path made project-relative when path is set), or
	// a bare flag for a true boolean.
	opts []nxExecOpt
}

type nxExecOpt struct {
	key, flag string
	path      bool // the value is a workspace-relative path
	boolean   bool // the flag stands alone when the value is true
	list      bool // the values are arguments (lintFilePatterns)
}

var nxExecutors = []nxExecutor{
	{names: []string{"@nx/vite:test", "@nrwl/vite:test", "@nx/vitest:test"}, base: "vitest run",
		opts: []nxExecOpt{
			{key: "configFile", flag: "--config", path: true},
			{key: "reportsDirectory", flag: "--coverage.reportsDirectory", path: true},
			{key: "passWithNoTests", flag: "--passWithNoTests", boolean: true},
			{key: "watch"},
		}},
	{names: []string{"@nx/jest:jest", "@nrwl/jest:jest"}, base: "jest",
		opts: []nxExecOpt{
			{key: "jestConfig", flag: "--config", path: true},
			{key: "passWithNoTests", flag: "--passWithNoTests", boolean: true},
			{key: "ci", flag: "--ci", boolean: true},
			{key: "codeCoverage", flag: "--coverage", boolean: true},
			{key: "coverageDirectory", flag: "--coverageDirectory", path: true},
		}},
	{names: []string{"@nx/eslint:lint", "@nx/linter:eslint", "@nrwl/linter:eslint"}, base: "eslint",
		opts: []nxExecOpt{
			{key: "lintFilePatterns", path: true, list: true},
			{key: "eslintConfig", flag: "--config", path: true},
			{key: "maxWarnings", flag: "--max-warnings"},
			{key: "quiet", flag: "--quiet", boolean: true},
			{key: "fix", flag: "--fix", boolean: true},
			{key: "format", flag: "--format"},
			{key: "outputFile", flag: "--output-file", path: true},
		}},
	{names: []string{"@nx/js:tsc", "@nrwl/js:tsc"}, base: "tsc",
		opts: []nxExecOpt{{key: "tsConfig", flag: "-p", path: true}, {key: "outputPath", flag: "--outDir", path: true}, {key: "main"}, {key: "assets"}}},
	{names: []string{"@nx/vite:build", "@nrwl/vite:build"}, base: "vite build",
		opts: []nxExecOpt{{key: "configFile", flag: "--config", path: true}, {key: "outputPath", flag: "--outDir", path: true}, {key: "mode", flag: "--mode"}}},
}

// executorCommand is the command an executor vx knows runs, in the
// project directory dir, with the options it could not translate; ok is
// false for an executor vx does not know.
func executorCommand(executor string, opts *jsonc.Node, dir string) (cmd string, dropped []string, ok bool) {
	i := slices.IndexFunc(nxExecutors, func(e nxExecutor) bool { return slices.Contains(e.names, executor) })
	if i < 0 {
		return "", nil, false
	}
	e := nxExecutors[i]
	parts := []string{e.base}
	var args []string
	for _, m := range membersOf(opts) {
		j := slices.IndexFunc(e.opts, func(o nxExecOpt) bool { return o.key == m.Key })
		if j < 0 {
			dropped = append(dropped, m.Key)
			continue
		}
		o := e.opts[j]
		switch {
		case o.list:
			vals, _ := m.Val.Strings()
			for _, v := range vals {
				args = append(args, shellQuote(projectPath(v, dir)))
			}
		case o.boolean:
			if m.Val.Kind == jsonc.Bool && m.Val.Bool {
				parts = append(parts, o.flag)
			}
		case o.flag == "":
			// Read by the executor only (e.g. watch: vx runs once).
		default:
			v := fmt.Sprint(m.Val.Value())
			if o.path {
				v = projectPath(v, dir)
			}
			parts = append(parts, o.flag, shellQuote(v))
		}
	}
	if e.base == "eslint" && len(args) == 0 {
		args = []string{"."}
	}
	return strings.Join(append(parts, args...), " "), dropped, true
}

// projectPath makes an executor option's path ({projectRoot}/…,
// {workspaceRoot}/… or workspace-relative) relative to the project dir.
func projectPath(v, dir string) string {
	v = strings.ReplaceAll(v, "{projectRoot}", dir)
	v = strings.TrimPrefix(strings.ReplaceAll(v, "{workspaceRoot}", ""), "/")
	return relSlash(dir, path.Clean(v))
}
