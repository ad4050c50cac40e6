package cmdline

import (
	"fmt"
	"os"
	"runtime/trace"
)

// traceEnv names the file an execution trace of the whole process is
// written to (`go tool trace FILE`: which goroutines ran, blocked or
// waited, in wall time; `go tool trace -pprof=syscall FILE` the time spent
// blocked in system and cgo calls).
const traceEnv = "VX_TRACE"

// startTrace starts an execution trace into the file named and returns
// what stops it; with name empty, or a trace that cannot start (said on
// stderr, prog first), it starts nothing.
func startTrace(prog, name string) func() {
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s=%s: %v\n", prog, traceEnv, name, err)
		return func() {}
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: %v\n", prog, traceEnv, err)
		f.Close()
		return func() {}
	}
	return func() {
		trace.Stop()
		f.Close()
	}
}
