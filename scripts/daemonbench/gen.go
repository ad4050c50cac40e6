package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// project is one generated package: its index and the indexes of the
// earlier packages it depends on.
type project struct {
	Name string
	Deps []int
}

func projectName(i int) string { return fmt.Sprintf("pkg-%04d", i) }

// graph draws the dependency graph: package i depends on up to 3 earlier
// packages, deterministic for a seed.
func graph(n int, seed uint64) []project {
	rng := rand.New(rand.NewPCG(seed, 0x6461656d6f6e))
	out := make([]project, n)
	for i := range out {
		out[i].Name = projectName(i)
		if i == 0 {
			continue
		}
		k := min(i, rng.IntN(4))
		seen := map[int]bool{}
		for len(seen) < k {
			seen[rng.IntN(i)] = true
		}
		for d := range seen {
			out[i].Deps = append(out[i].Deps, d)
		}
		sortInts(out[i].Deps)
	}
	return out
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// workspaceConfig is vx.workspace.json: build and test, plus extra tasks
// (the config-edit measurement adds one per edit).
func workspaceConfig(extra ...string) []byte {
	tasks := map[string]any{
		"build": map[string]any{"dependsOn": []string{"^build"}, "inputs": []string{"src/**", "package.json"}, "outputs": []string{"dist/**"}},
		"test":  map[string]any{"dependsOn": []string{"build"}, "inputs": []string{"src/**", "test/**"}, "timeout": "2m"},
	}
	for _, t := range extra {
		tasks[t] = map[string]any{"command": "echo " + t, "inputs": []string{"src/**"}}
	}
	return mustJSON(map[string]any{
		"projects":     []string{"packages/*"},
		"globalInputs": []string{"tsconfig.base.json"},
		"env":          []string{"NODE_ENV"},
		"tasks":        tasks,
	})
}

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// generate writes the workspace: a root package.json, vx.workspace.json,
// tsconfig.base.json, and per package a package.json (scripts build and
// test, dependencies on earlier packages), two sources and a test.
func generate(dir string, projects []project) error {
	files := map[string][]byte{
		"package.json":       mustJSON(map[string]any{"name": "daemonbench", "private": true, "workspaces": []string{"packages/*"}}),
		"vx.workspace.json":  workspaceConfig(),
		"tsconfig.base.json": []byte("{ \"compilerOptions\": { \"strict\": true } }\n"),
		".gitignore":         []byte("node_modules/\ndist/\n.vx/\n"),
	}
	for i, p := range projects {
		deps := map[string]string{}
		for _, d := range p.Deps {
			deps[projectName(d)] = "workspace:*"
		}
		base := "packages/" + p.Name + "/"
		files[base+"package.json"] = mustJSON(map[string]any{
			"name": p.Name, "version": "1.0.0", "private": true,
			"dependencies": deps,
			"scripts":      map[string]string{"build": "mkdir -p dist && cat src/*.js > dist/index.js", "test": "node --test test/"},
		})
		files[base+"src/index.js"] = fmt.Appendf(nil, "export const id = %d;\n", i)
		files[base+"src/util.js"] = fmt.Appendf(nil, "export function twice(x) { return 2 * x + %d; }\n", i)
		files[base+"test/index.test.js"] = []byte("import { test } from 'node:test';\ntest('ok', () => {});\n")
	}
	for rel, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
