package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// A burst of task ends faster than the announcer (a shell run of 10,000
// hits while an MCP client follows a resource) is one warning when updates
// start to drop and one when the announcer has caught up, with the count,
// not a line of vxd.log per dropped update.
func TestDroppedUpdatesLoggedOncePerBurst(t *testing.T) {
	var buf bytes.Buffer
	b := &behind{log: zerolog.New(&buf)}
	for range 5000 {
		b.drop("task.finished")
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Fatalf("5,000 dropped updates logged %d lines; want 1:\n%.500s", n, buf.String())
	}
	b.caughtUp()
	b.caughtUp()
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[1], `"dropped":5000`) {
		t.Fatalf("after catching up: %q; want a second line counting 5000", lines)
	}
	b.drop("run.finished")
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Fatalf("a new burst logged %d lines in all; want 3", n)
	}
}
