package workspace

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkDecodeJSONC decodes a typical package.json and a workspace
// configuration with comments, as every load does for every project.
func BenchmarkDecodeJSONC(b *testing.B) {
	var deps []string
	for i := range 30 {
		deps = append(deps, fmt.Sprintf("%q: \"^%d.0.0\"", fmt.Sprintf("dep-%d", i), i))
	}
	pkg := []byte(`{
  "name": "web", "version": "1.0.0",
  "scripts": {"build": "tsc -p .", "test": "vitest run", "lint": "eslint ."},
  "dependencies": {` + strings.Join(deps, ", ") + `}
}`)
	var tasks []string
	for i := range 20 {
		tasks = append(tasks, fmt.Sprintf(`// task %d
    "t%d": {"command": "echo %d", "dependsOn": ["^t%d"], "inputs": ["src/**"], "outputs": ["dist/**",],},`, i, i, i, i))
	}
	cfg := []byte("// workspace\n{\n  \"projects\": [\"apps/*\", \"packages/*\"],\n  \"tasks\": {\n    " + strings.Join(tasks, "\n    ") + "\n  },\n}\n")
	b.Run("package.json", func(b *testing.B) {
		b.SetBytes(int64(len(pkg)))
		for b.Loop() {
			var p packageJSON
			if err := decodeJSONC("package.json", pkg, &p, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("vx.workspace.json", func(b *testing.B) {
		b.SetBytes(int64(len(cfg)))
		for b.Loop() {
			var c Config
			if err := decodeJSONC("vx.workspace.json", cfg, &c, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
