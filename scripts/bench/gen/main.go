// Command gen writes the benchmark workspace: N packages under packages/,
// package i depending on up to 3 earlier ones, 10 source files of about
// 500 bytes each, and a build that concatenates them into dist/. The same
// tree carries vx.workspace.json and an equivalent Turborepo setup
// (turbo.json, package.json workspaces and packageManager), so vx and
// turbo run on identical copies. The output is deterministic for a seed.
//
//	go run ./scripts/bench/gen -n 1000 -out DIR
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const build = "mkdir -p dist && cat src/*.js > dist/index.js"

func main() {
	n := flag.Int("n", 1000, "number of packages")
	out := flag.String("out", "", "directory to create (must not exist or be empty)")
	seed := flag.Uint64("seed", 1, "seed of the dependency graph and file contents")
	pm := flag.String("package-manager", "npm@10.0.0", "the root package.json packageManager field")
	flag.Parse()
	if *out == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: gen -n N -out DIR [-seed S] [-package-manager npm@X.Y.Z]")
		os.Exit(2)
	}
	if err := generate(*out, *n, *seed, *pm); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func name(i int) string { return fmt.Sprintf("pkg-%04d", i) }

func generate(dir string, n int, seed uint64, pm string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty", dir)
	}
	rng := rand.New(rand.NewPCG(seed, 0x76782d62656e6368))
	files := map[string][]byte{}
	put := func(p string, v any) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
		files[p] = b.Bytes()
	}

	put("package.json", map[string]any{
		"name":           "vx-bench",
		"private":        true,
		"packageManager": pm,
		"workspaces":     []string{"packages/*"},
	})
	task := map[string]any{
		"dependsOn": []string{"^build"},
		"inputs":    []string{"src/**", "package.json"},
		"outputs":   []string{"dist/**"},
	}
	put("vx.workspace.json", map[string]any{
		"projects": []string{"packages/*"},
		"tasks":    map[string]any{"build": task},
	})
	put("turbo.json", map[string]any{
		"$schema": "https://turborepo.com/schema.json",
		"tasks":   map[string]any{"build": task},
	})
	files[".gitignore"] = []byte("node_modules/\ndist/\n.turbo/\n.vx/\n")

	for i := 0; i < n; i++ {
		deps := map[string]string{}
		if i > 0 {
			k := min(i, rng.IntN(4)) // 0..3 dependencies
			for len(deps) < k {
				deps[name(rng.IntN(i))] = "*"
			}
		}
		dir := "packages/" + name(i)
		put(dir+"/package.json", map[string]any{
			"name":         name(i),
			"version":      "1.0.0",
			"private":      true,
			"dependencies": deps,
			"scripts":      map[string]string{"build": build},
		})
		for f := 0; f < 10; f++ {
			files[fmt.Sprintf("%s/src/f%d.js", dir, f)] = source(rng, i, f)
		}
	}

	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// source is one ~500 byte JavaScript module with varied content.
func source(rng *rand.Rand, pkg, file int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s/src/f%d.js\nexport function f%d_%d(x) {\n", name(pkg), file, pkg, file)
	for b.Len() < 470 {
		fmt.Fprintf(&b, "  x = (x * %d + %d) %% %d;\n", rng.IntN(1000)+1, rng.IntN(100000), rng.IntN(9000)+1000)
	}
	b.WriteString("  return x;\n}\n")
	return []byte(b.String())
}
