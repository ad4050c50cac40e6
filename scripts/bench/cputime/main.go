// Command cputime runs a command and writes its wall and CPU (user +
// system) time to a file, in microseconds: "WALL CPU". The benchmark
// scripts use it where GNU time's 10 ms steps are too coarse (a no-op run
// takes 70-90 ms of CPU, and a 5% difference is 4 ms).
//
// Usage: cputime OUTFILE COMMAND [ARG...]
// The command's output is passed through; its failure is cputime's.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: cputime OUTFILE COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "cputime:", err)
		os.Exit(2)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	line := fmt.Sprintf("%d %d\n", wall.Microseconds(), cpu.Microseconds())
	if werr := os.WriteFile(os.Args[1], []byte(line), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "cputime:", werr)
		os.Exit(2)
	}
	if err != nil {
		os.Exit(cmd.ProcessState.ExitCode())
	}
}
