// Command vx is the task runner's command line.
package main

import (
	"context"
	"os"

	"github.com/vzn/vx/cli"
	"github.com/vzn/vx/daemon/sandbox"
)

func main() {
	// A sandboxed task starts as vx under the helper's name: confine, exec the
	// task's shell, nothing else (the policy arrives on a descriptor, not argv).
	if sandbox.IsHelper(os.Args[0]) {
		sandbox.HelperMain()
	}
	os.Exit(cli.Run(context.Background(), os.Args[1:], &cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
