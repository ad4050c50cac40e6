// Command vx is the task runner's command line.
package main

import (
	"context"
	"os"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/cli/vx"
)

func main() {
	stop := cmdline.StartProfiles("vx")
	code := vx.Run(context.Background(), os.Args[1:], &cmdline.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
