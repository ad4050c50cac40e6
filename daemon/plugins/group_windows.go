package plugins

import (
	"os/exec"
	"sync"

	"github.com/vzn/vx/internal/jobobject"
	"github.com/vzn/vx/internal/procmark"
)

// runTree runs cmd with it and every process it starts held in a Job
// Object of its own (internal/jobobject), ended when its context ends
// and once cmd has been waited for: nothing the plugin started outlives
// the request, wherever it went: the job, not m (which the caller puts in
// its environment for the other systems), holds them. (A process it
// starts before it is held, in the few instructions after it was
// created, is not in the job.)
func runTree(cmd *exec.Cmd, _ procmark.Mark) error {
	var mu sync.Mutex
	var job *jobobject.Job
	cmd.Cancel = func() error {
		mu.Lock()
		job.Terminate()
		mu.Unlock()
		return cmd.Process.Kill()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	held, _ := jobobject.Hold(cmd.Process.Pid) // nil: the process alone is killed
	mu.Lock()
	job = held
	mu.Unlock()
	err := cmd.Wait()
	mu.Lock()
	job.Close()
	mu.Unlock()
	return err
}
