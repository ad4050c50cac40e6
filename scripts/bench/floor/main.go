//go:build unix

// Command floor is the floor a fully cached run is measured against: what
// it costs to know every file of the workspace in the working directory
// is unchanged without a daemon, that is `git ls-files` and an lstat of
// every file it lists. The benchmark times the whole process.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor: git ls-files:", err)
		os.Exit(1)
	}
	var st syscall.Stat_t
	n := 0
	for _, f := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if syscall.Lstat(string(f), &st) == nil {
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(os.Stderr, "floor: no file listed")
		os.Exit(1)
	}
}
