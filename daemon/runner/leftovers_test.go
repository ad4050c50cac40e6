package runner

import (
	"os"
	"testing"
)

func TestLeftoverOwner(t *testing.T) {
	cases := []struct {
		name  string
		pid   int
		start int64
		ok    bool
	}{
		{"scratch-123-456-789", 123, 456, true},
		{"7923-0", 7923, 0, true},
		{"scratch-123", 0, 0, false},
		{"scratch-x-1-2", 0, 0, false},
		{"notes", 0, 0, false},
		{"0-1", 0, 0, false},
	}
	for _, c := range cases {
		pid, start, ok := leftoverOwner(c.name)
		if pid != c.pid || start != c.start || ok != c.ok {
			t.Errorf("leftoverOwner(%q) = %d %d %v, want %d %d %v", c.name, pid, start, ok, c.pid, c.start, c.ok)
		}
	}
	if ownerGone(os.Getpid(), 0) {
		t.Error("this process reads as gone")
	}
}
