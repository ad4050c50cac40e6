package cmdline

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiling for the benchmarks (docs/benchmarks.md), in vx and vxd alike:
// VX_CPUPROFILE=FILE writes a CPU profile of the whole process to FILE,
// VX_MEMPROFILE=FILE an allocation profile (every allocation sampled) when
// it ends (for vxd: vxd stop, SIGTERM), VX_TRACE=FILE an execution trace
// (trace.go). None is read unless set.
const (
	cpuProfileEnv = "VX_CPUPROFILE"
	memProfileEnv = "VX_MEMPROFILE"
)

// StartProfiles starts what the environment asks for and returns the
// function that finishes and writes the profiles; prog ("vx", "vxd")
// begins its complaints.
func StartProfiles(prog string) func() {
	cpu, mem, tr := os.Getenv(cpuProfileEnv), os.Getenv(memProfileEnv), os.Getenv(traceEnv)
	if cpu == "" && mem == "" && tr == "" {
		return func() {}
	}
	stopTrace := startTrace(prog, tr)
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s=%s: %v\n", prog, cpuProfileEnv, cpu, err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", prog, cpuProfileEnv, err)
			f.Close()
		} else {
			cpuFile = f
		}
	}
	if mem != "" {
		runtime.MemProfileRate = 1
	}
	return func() {
		stopTrace()
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem == "" {
			return
		}
		f, err := os.Create(mem)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s=%s: %v\n", prog, memProfileEnv, mem, err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", prog, memProfileEnv, err)
		}
	}
}
