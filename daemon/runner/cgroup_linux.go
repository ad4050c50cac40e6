package runner

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// runCgroup is a run's cgroup v2 directory, vx-PID-N beneath vx's own
// cgroup, holding one cgroup per executing task. Tasks start in theirs
// (clone3 CLONE_INTO_CGROUP, so no process of a task is ever outside it,
// and no byte of it is charged elsewhere), and no process leaves it
// without write access to cgroups above vx's.
type runCgroup struct {
	dir    string
	memory bool        // the tasks' cgroups have the memory controller
	broken atomic.Bool // a start into a cgroup failed: stop trying
	seq    atomic.Int64
}

var runCgroupSeq atomic.Int64

// newRunCgroup makes the run's cgroup, or nil where vx cannot: no cgroup
// v2 hierarchy, or no write access to its own cgroup (not root, and not
// in a subtree delegated to its user).
func newRunCgroup() *runCgroup {
	if os.Getenv(NoCgroupEnv) == "1" {
		return nil
	}
	base := ownCgroup()
	if base == "" {
		return nil
	}
	dir := filepath.Join(base, fmt.Sprintf("vx-%d-%d", os.Getpid(), runCgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	removeStaleCgroups(base)
	c := &runCgroup{dir: dir}
	if ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers")); err == nil && containsWord(string(ctl), "memory") {
		// The run's cgroup holds no process, so its children may have it.
		c.memory = os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory"), 0) == nil
	}
	return c
}

// removeStaleCgroups removes the run cgroups in base of vx processes that
// are gone, killing what is left in them: a run whose vx and watchdog were
// both killed leaves its cgroup, and whatever of its tasks was in it.
func removeStaleCgroups(base string) {
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "vx-")
		pid, _, ok2 := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || !ok2 || err != nil || !e.IsDir() || n <= 0 {
			continue
		}
		if syscall.Kill(n, 0) == syscall.ESRCH {
			removeCgroup(filepath.Join(base, e.Name()))
		}
	}
}

// path is the run's cgroup directory, "" for none.
func (c *runCgroup) path() string {
	if c == nil {
		return ""
	}
	return c.dir
}

// giveUp stops putting the run's tasks in cgroups.
func (c *runCgroup) giveUp() {
	if c != nil {
		c.broken.Store(true)
	}
}

// taskCgroup is one task's cgroup, open for CLONE_INTO_CGROUP.
type taskCgroup struct {
	dir    string
	fd     *os.File
	memory bool // memory.peak is there
}

// newTask makes a task's cgroup; nil when the run has none.
func (c *runCgroup) newTask() *taskCgroup {
	if c == nil || c.broken.Load() {
		return nil
	}
	dir := filepath.Join(c.dir, strconv.FormatInt(c.seq.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		_ = os.Remove(dir)
		return nil
	}
	t := &taskCgroup{dir: dir, fd: f}
	if c.memory {
		_, err := os.Stat(filepath.Join(dir, "memory.peak"))
		t.memory = err == nil
	}
	return t
}

// attach makes the process start in the cgroup.
func (t *taskCgroup) attach(attr *syscall.SysProcAttr) {
	if t != nil {
		attr.UseCgroupFD, attr.CgroupFD = true, int(t.fd.Fd())
	}
}

func (t *taskCgroup) measuresMemory() bool { return t != nil && t.memory }

// peak is the cgroup's memory.peak in bytes; false without one.
func (t *taskCgroup) peak() (int64, bool) {
	if !t.measuresMemory() {
		return 0, false
	}
	return readInt(filepath.Join(t.dir, "memory.peak")), true
}

// kill kills every process in the cgroup, leaving it in place.
func (t *taskCgroup) kill() {
	if t != nil {
		killCgroup(t.dir)
	}
}

// remove kills what is left in the cgroup and removes it.
func (t *taskCgroup) remove() {
	if t == nil {
		return
	}
	t.fd.Close()
	removeCgroup(t.dir)
}

// removeCgroup kills every process in the cgroup dir and beneath it, and
// removes them all; the watchdog's end, and each task's. It gives up
// after a second (a process stuck in the kernel).
func removeCgroup(dir string) {
	if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
		return // empty: the common case
	}
	killCgroup(dir)
	for i := 0; i < 100; i++ {
		if removeCgroupTree(dir) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killCgroup kills every process in dir and beneath: at once through
// cgroup.kill, or before Linux 5.14 one listed process at a time, again
// until none is left (a process being killed forks no more).
func killCgroup(dir string) {
	if os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for i := 0; i < 100; i++ {
		pids := cgroupProcs(dir)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cgroupProcs lists the processes in dir and beneath.
func cgroupProcs(dir string) []int {
	var pids []int
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return nil
	})
	return pids
}

// removeCgroupTree removes dir's child cgroups, then dir; true once dir
// is gone.
func removeCgroupTree(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			removeCgroupTree(filepath.Join(dir, e.Name()))
		}
	}
	err := os.Remove(dir)
	return err == nil || errors.Is(err, os.ErrNotExist)
}

// isRunCgroup says whether dir can be a run's cgroup, as the watchdog is
// told it: a vx-* directory of a cgroup v2 hierarchy.
func isRunCgroup(dir string) bool {
	if !filepath.IsAbs(dir) || !strings.HasPrefix(filepath.Base(dir), "vx-") {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "cgroup.procs"))
	return err == nil
}

// ownCgroup is vx's own cgroup v2 directory, or "" without a cgroup v2
// hierarchy.
func ownCgroup() string {
	mount := cgroup2Mount()
	if mount == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rel, ok := strings.CutPrefix(line, "0::"); ok {
			return filepath.Join(mount, filepath.FromSlash(rel))
		}
	}
	return ""
}

// cgroup2Mount finds where the cgroup v2 hierarchy is mounted.
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE SUPER
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) >= 5 && len(rf) >= 1 && rf[0] == "cgroup2" && lf[3] == "/" {
			return lf[4]
		}
	}
	return ""
}

func containsWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
