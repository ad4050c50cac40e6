package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/workspace"
)

// TestForecastLeft: the time left is the dry run's prediction over what
// is left: the longest chain of remaining p50s (a running task counting
// its p50 less its elapsed time), no less than the remaining work spread
// over the workers, with the tasks that have no p50 counted apart.
func TestForecastLeft(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"vx.workspace.json":   `{"projects": ["p/*"], "tasks": {"build": {"dependsOn": ["^build"]}}}`,
		"p/lib/package.json":  `{"name": "lib", "scripts": {"build": "true"}}`,
		"p/app/package.json":  `{"name": "app", "scripts": {"build": "true"}, "dependencies": {"lib": "*"}}`,
		"p/tool/package.json": `{"name": "tool", "scripts": {"build": "true"}}`,
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := workspace.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Build([]string{"build"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	full := map[string]int64{"lib#build": 10000, "app#build": 20000, "tool#build": 5000}
	none := func(string) bool { return false }
	for _, tc := range []struct {
		name    string
		p50     map[string]int64
		workers int
		done    func(string) bool
		running map[string]time.Duration
		left    time.Duration
		unknown int
	}{
		{name: "nothing started: the chain lib then app", p50: full, workers: 4, done: none, left: 30 * s},
		{name: "one worker: all the work", p50: full, workers: 1, done: none, left: 35 * s},
		{name: "lib running 4s", p50: full, workers: 4, done: none, running: map[string]time.Duration{"lib#build": 4 * s}, left: 26 * s},
		{name: "lib past its p50", p50: full, workers: 4, done: none, running: map[string]time.Duration{"lib#build": 40 * s}, left: 20 * s},
		{name: "lib done", p50: full, workers: 4, done: func(id string) bool { return id == "lib#build" }, left: 20 * s},
		{name: "app without history", p50: map[string]int64{"lib#build": 10000, "tool#build": 5000}, workers: 4, done: none, left: 10 * s, unknown: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Forecast{g: g, workers: tc.workers, p50: tc.p50}
			left, unknown := f.Left(tc.done, tc.running)
			if left != tc.left || unknown != tc.unknown {
				t.Errorf("Left = %s, %d unknown; want %s, %d", left, unknown, tc.left, tc.unknown)
			}
		})
	}
}
