// Package sandbox confines a task's process with Linux Landlock and learns
// of every access it makes outside its declaration.
//
// Start clones the task itself (fork_linux.go): the child, sharing vx's
// memory until it execs, sets no_new_privs, restricts itself with the
// Landlock ruleset and installs a seccomp filter that hands each
// write-intent filesystem call and each TCP connect/bind to vx through a
// user-notification listener, then execs the task's /bin/sh -c. The shell
// and every process it starts are bound from their first instruction, and
// no thread of vx is confined. (Where vx cannot clone the task itself, on
// other architectures or where clone3 is refused, a fresh locked thread of
// vx is confined instead and starts the task through os/exec; the thread is
// never reused.) The observer reads each notification while the calling
// process waits, resolves the path against that process's cwd or directory
// descriptor, records what falls outside the policy and lets the call
// continue: in enforce mode Landlock then denies it, in report mode it goes
// through. The goroutine waiting for the task answers its notifications
// (waiter_linux.go); one hub answers those that come before that wait or
// after the task's first process has exited (hub_linux.go). No task string
// is ever parsed: the command is the shell's -c argument, as without a
// sandbox.
//
// Only Linux has Landlock and seccomp: the Linux code is in _linux.go files.
// Elsewhere (session_other.go) Detect answers unavailable, and Decide, the
// one place that turns a verdict into what a run does with a task's
// sandbox, runs such tasks unconfined with one warning a run and refuses a
// required one.
package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/vzn/vx/protocol/wire"
)

// forceNoLandlockEnv, set to 1, makes Detect report a host without
// Landlock. It exists for tests of that verdict.
const forceNoLandlockEnv = "VX_SANDBOX_FORCE_NO_LANDLOCK"

// MaxViolations bounds the distinct violations kept for one execution.
const MaxViolations = 100

// Policy is what Start applies. WriteDirs and WriteFiles are absolute;
// Start makes them symlink-free (see Resolve) before the task runs.
type Policy struct {
	Landlock   bool // apply a Landlock ruleset (enforce on a host with Landlock)
	Observe    bool // install the seccomp observer
	Network    bool // TCP allowed
	ABI        int  // the host's Landlock ABI, for what a violation was denied
	WriteDirs  []string
	WriteFiles []string
}

// Allows reports whether the policy lets a process write p (absolute, clean).
func (p *Policy) Allows(path string) bool {
	for _, f := range p.WriteFiles {
		if path == f {
			return true
		}
	}
	for _, d := range p.WriteDirs {
		if beneath(path, d) {
			return true
		}
	}
	return false
}

func beneath(path, dir string) bool {
	if dir == "/" || path == dir {
		return true
	}
	return strings.HasPrefix(path, dir+"/")
}

// deviceFiles are writable by every task: the shell and most tools open
// them for writing.
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// deviceDirs likewise (pseudo-terminals).
var deviceDirs = []string{"/dev/pts"}

// WriteRoots turns a task's outputs and sandbox write globs into the
// directories Landlock can confine writes to. Landlock grants rights
// beneath a directory, not by pattern, so a glob allows its literal
// directory prefix ("dist/**" and "dist/*.js" both allow dist/), a glob
// with no literal prefix ("*.log") allows dir itself, and a literal path
// that is not an existing directory allows its parent (creating a file
// needs the right on its directory). Relative globs are under dir; a
// negated one ("!x") widens nothing. tmp is the task's own temp dir.
func WriteRoots(dir string, globs []string, tmp string) (dirs, files []string) {
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			dirs = append(dirs, p)
		}
	}
	for _, g := range globs {
		if g == "" || strings.HasPrefix(g, "!") {
			continue
		}
		base := dir
		if filepath.IsAbs(g) {
			base = "/"
		}
		segs := strings.Split(filepath.ToSlash(g), "/")
		lit := 0
		for lit < len(segs) && !strings.ContainsAny(segs[lit], `*?[{\`) {
			lit++
		}
		root := filepath.Join(base, filepath.Join(segs[:lit]...))
		if lit == len(segs) {
			if !isDir(root) {
				root = filepath.Dir(root)
			}
		}
		add(root)
	}
	if tmp != "" {
		add(tmp)
	}
	for _, d := range deviceDirs {
		add(d)
	}
	files = append(files, deviceFiles...)
	return dirs, files
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Verdict is re-exported for callers that only import this package.
type Verdict = wire.SandboxVerdict
