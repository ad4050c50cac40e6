package plugins

import "os/exec"

// ownGroup leaves cmd's cancellation to kill the process itself (Windows
// has no process groups to signal).
func ownGroup(cmd *exec.Cmd) {}

// killGroup does nothing: Windows has no process group to kill.
func killGroup(cmd *exec.Cmd) {}
