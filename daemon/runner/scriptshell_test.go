//go:build unix

package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// fakeShell writes an executable shell that says its name, then runs the
// script it is given (-c script) with /bin/sh.
func fakeShell(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho \"via "+name+": $2\"\nexec /bin/sh \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScriptShellFromNpmrc: package.json scripts run through the shell
// npm's script-shell names, as npm runs them: a project's .npmrc before
// the workspace root's, the user's (HOME, or npm_config_userconfig) last,
// and the npm_config_script_shell variable before all; with none, sh.
func TestScriptShellFromNpmrc(t *testing.T) {
	ctx := context.Background()
	root, home, shells := t.TempDir(), t.TempDir(), t.TempDir()
	rootSh, userSh, envSh := fakeShell(t, shells, "rootsh"), fakeShell(t, shells, "usersh"), fakeShell(t, shells, "envsh")
	fakeShell(t, shells, "projsh") // named by b's .npmrc through ${SHELLS}
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects": ["p/*"], "tasks": {"build": {"cache": false}}}`,
		"p/a/package.json":  `{"name": "a", "scripts": {"build": "echo a built"}}`,
		"p/b/package.json":  `{"name": "b", "scripts": {"build": "echo b built"}}`,
		// npm's ini: comments, spaces, quotes, ${VAR}, the last one wins.
		"p/b/.npmrc": "; b's own\nscript-shell=/nowhere\n  script-shell = \"${SHELLS}/projsh\"\n",
	})
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte("script-shell="+userSh+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) string {
		t.Helper()
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build"}},
			Environ: append([]string{"PATH=" + os.Getenv("PATH"), "SHELLS=" + shells}, env...), Command: []string{"run", "build"}}
		p, err := runner.Prepare(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := runner.Execute(ctx, p, o, runner.Output{W: &out}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	check := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("run output lacks %q:\n%s", w, out)
			}
		}
	}

	out := run()
	check(out, "a#build: a built", "b#build: via projsh: echo b built", "b#build: b built")
	if strings.Contains(out, "a#build: via") {
		t.Errorf("a has no script-shell anywhere, yet:\n%s", out)
	}
	check(run("HOME="+home), "a#build: via usersh: echo a built", "b#build: via projsh")
	check(run("npm_config_userconfig="+filepath.Join(home, ".npmrc")), "a#build: via usersh")

	testtree.Write(t, root, map[string]string{".npmrc": "script-shell=" + rootSh + "\n"})
	check(run("HOME="+home), "a#build: via rootsh: echo a built", "b#build: via projsh")
	check(run("HOME="+home, "NPM_CONFIG_SCRIPT_SHELL="+envSh), "a#build: via envsh", "b#build: via envsh")
}
