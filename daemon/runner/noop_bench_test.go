package runner_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// The warm no-op path of `vx run build` (docs/benchmarks.md): every task a
// hit whose outputs are as vx left them.
//
//	go test ./daemon/runner -run '^$' -bench Noop -benchtime 20x
//	VX_BENCH_PACKAGES=1000 go test ./daemon/runner -run '^$' -bench Noop -cpuprofile cpu.out
//	VX_BENCH_WORKSPACE=DIR (an already filled workspace, e.g. scripts/bench/work/ws/vx-1000)
//
// The sub-benchmarks time the phases; "run" is one whole run as cmd/vx
// does it (load, prepare, execute). The workspace parse cache is warm in
// one process, so "load" here is cheaper than in a fresh vx process.
func BenchmarkNoop(b *testing.B) {
	root := noopWorkspace(b)
	ctx := context.Background()
	env := []string{"PATH=" + os.Getenv("PATH")}
	opts := func(m *workspace.Model) *runner.Options {
		return &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build"}}, Environ: env, Command: []string{"run", "build"}}
	}
	warm := func() *workspace.Model {
		m, err := workspace.Load(root)
		if err != nil {
			b.Fatal(err)
		}
		p, err := runner.Prepare(ctx, opts(m))
		if err != nil {
			b.Fatal(err)
		}
		sum, err := runner.Execute(ctx, p, opts(m), runner.Output{W: io.Discard})
		if err != nil || !sum.OK {
			b.Fatalf("filling run: %v %+v", err, sum)
		}
		return m
	}
	m := warm()
	m = warm() // the second run stamps every output
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := workspace.Load(root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			if _, err := hashing.ListFiles(ctx, root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("prepare", func(b *testing.B) {
		for b.Loop() {
			if _, err := runner.Prepare(ctx, opts(m)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("execute", func(b *testing.B) {
		p, err := runner.Prepare(ctx, opts(m))
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			sum, err := runner.Execute(ctx, p, opts(m), runner.Output{W: io.Discard})
			if err != nil || sum.Totals.Cached != sum.Totals.Tasks {
				b.Fatalf("not a no-op: %v %+v", err, sum.Totals)
			}
		}
	})
	b.Run("run", func(b *testing.B) {
		for b.Loop() {
			m, err := workspace.Load(root)
			if err != nil {
				b.Fatal(err)
			}
			p, err := runner.Prepare(ctx, opts(m))
			if err != nil {
				b.Fatal(err)
			}
			sum, err := runner.Execute(ctx, p, opts(m), runner.Output{W: io.Discard})
			if err != nil || sum.Totals.Cached != sum.Totals.Tasks {
				b.Fatalf("not a no-op: %v %+v", err, sum.Totals)
			}
		}
	})
}

// noopWorkspace is VX_BENCH_WORKSPACE, or a generated git workspace of
// VX_BENCH_PACKAGES packages (default 200) shaped as scripts/bench/gen's.
func noopWorkspace(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("VX_BENCH_WORKSPACE"); dir != "" {
		return dir
	}
	n := 200
	if v := os.Getenv("VX_BENCH_PACKAGES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("VX_BENCH_PACKAGES=%q is not a package count", v)
		}
	}
	root := b.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("vx.workspace.json", `{"projects": ["packages/*"], "tasks": {"build": {"dependsOn": ["^build"], "inputs": ["src/**", "package.json"], "outputs": ["dist/**"]}}}`)
	write(".gitignore", "dist/\n.vx/\n")
	for i := 0; i < n; i++ {
		var deps []string
		for _, d := range []int{i - 1, i / 2, i / 3} {
			if d >= 0 && d < i {
				deps = append(deps, fmt.Sprintf(`"pkg-%04d": "*"`, d))
			}
		}
		write(fmt.Sprintf("packages/pkg-%04d/package.json", i), fmt.Sprintf(
			`{"name": "pkg-%04d", "scripts": {"build": "mkdir -p dist && cat src/*.js > dist/index.js"}, "dependencies": {%s}}`, i, strings.Join(deps, ", ")))
		for f := 0; f < 10; f++ {
			write(fmt.Sprintf("packages/pkg-%04d/src/f%d.js", i, f), fmt.Sprintf("export const v%d_%d = %q;\n", i, f, strings.Repeat("x", 480)))
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@localhost", "commit", "-qm", "ws"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}
