// Package terminal_test holds what vx run shows a person: on a terminal
// (a tmux pane of a fixed size, read with capture-pane and its raw bytes
// with pipe-pane) a live status area under the task lines that is gone
// when the summary prints, and on a pipe, in CI or on a dumb terminal
// the task lines alone, without one escape sequence.
package terminal_test

import (
	"os"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

var vxBin string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite{
		TempPrefix: "vx-terminal-test-",
		Binaries:   []harness.Binary{{Dest: &vxBin, Path: "bin/vx", Pkg: "./cmd/vx", Given: "VX_TEST_BIN"}},
	}.Run(m))
}
