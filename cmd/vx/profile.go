package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// Profiling for the benchmarks (docs/benchmarks.md): VX_CPUPROFILE=FILE
// writes a CPU profile of the whole command to FILE, VX_MEMPROFILE=FILE an
// allocation profile (every allocation sampled) when it ends, and
// VX_TRACE=FILE an execution trace (`go tool trace FILE`: which goroutines
// ran, blocked or waited, in wall time). None is read unless set.
const (
	cpuProfileEnv = "VX_CPUPROFILE"
	memProfileEnv = "VX_MEMPROFILE"
	traceEnv      = "VX_TRACE"
)

// startProfiles starts what the environment asks for and returns the
// function that finishes and writes the profiles.
func startProfiles() func() {
	cpu, mem, tr := os.Getenv(cpuProfileEnv), os.Getenv(memProfileEnv), os.Getenv(traceEnv)
	if cpu == "" && mem == "" && tr == "" {
		return func() {}
	}
	traceFile := startTrace(tr)
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			fmt.Fprintf(os.Stderr, "vx: %s=%s: %v\n", cpuProfileEnv, cpu, err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "vx: %s: %v\n", cpuProfileEnv, err)
			f.Close()
		} else {
			cpuFile = f
		}
	}
	if mem != "" {
		runtime.MemProfileRate = 1
	}
	return func() {
		if traceFile != nil {
			trace.Stop()
			traceFile.Close()
		}
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem == "" {
			return
		}
		f, err := os.Create(mem)
		if err != nil {
			fmt.Fprintf(os.Stderr, "vx: %s=%s: %v\n", memProfileEnv, mem, err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintf(os.Stderr, "vx: %s: %v\n", memProfileEnv, err)
		}
	}
}

// startTrace starts an execution trace into the file named, or returns nil
// (saying why on stderr) when name is empty or the trace cannot start.
func startTrace(name string) *os.File {
	if name == "" {
		return nil
	}
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vx: %s=%s: %v\n", traceEnv, name, err)
		return nil
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintf(os.Stderr, "vx: %s: %v\n", traceEnv, err)
		f.Close()
		return nil
	}
	return f
}
