//go:build !linux

package runner

import "syscall"

// Only Linux has cgroups. On macOS a task's processes are held by its
// process group (and, should vx die, by the watchdog's search for its
// marker) alone, docs/processes.md says what that leaves out; on Windows
// by a Job Object of the task's own (group_windows.go). These are the
// Linux cgroup's operations, for a run that never has one.

type (
	runCgroup  struct{}
	taskCgroup struct{}
)

func newRunCgroup() *runCgroup                  { return nil }
func (*runCgroup) path() string                 { return "" }
func (*runCgroup) giveUp()                      {}
func (*runCgroup) newTask() *taskCgroup         { return nil }
func (*taskCgroup) attach(*syscall.SysProcAttr) {}
func (*taskCgroup) measuresMemory() bool        { return false }
func (*taskCgroup) peak() (int64, bool)         { return 0, false }
func (*taskCgroup) remove()                     {}
func (*taskCgroup) kill()                       {}
func removeCgroup(string)                       {}
func isRunCgroup(string) bool                   { return false }
