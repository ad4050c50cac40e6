// Command vxd is the per-workspace vx daemon.
package main

import (
	"context"
	"os"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/cli/vxd"
)

func main() {
	limitMemory()
	stop := cmdline.StartProfiles("vxd")
	code := vxd.Run(context.Background(), os.Args[1:], &cmdline.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
