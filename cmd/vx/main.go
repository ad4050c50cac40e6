// Command vx is the task runner's command line.
package main

import (
	"context"
	"os"

	"github.com/vzn/vx/cli"
)

func main() {
	stop := startProfiles()
	code := cli.Run(context.Background(), os.Args[1:], &cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
