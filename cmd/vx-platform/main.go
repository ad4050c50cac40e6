// Command vx-platform is the vx team platform: see platform/cli.
package main

import (
	"context"
	"os"

	"github.com/vzn/vx/platform/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
