package connlimit

import (
	"errors"
	"testing"
)

// TestStreamsCaps: a key's cap and the total cap each refuse with a
// FullError saying which, and a release (however often called) gives
// one slot back.
func TestStreamsCaps(t *testing.T) {
	s := &Streams{Max: 3, PerKey: 2}
	a1, err1 := s.Acquire("a")
	_, err2 := s.Acquire("a")
	_, err3 := s.Acquire("a")
	var full *FullError
	if err1 != nil || err2 != nil || !errors.As(err3, &full) || !full.PerKey || full.Max != 2 {
		t.Fatalf("per key: %v %v %v", err1, err2, err3)
	}
	if _, err := s.Acquire("b"); err != nil {
		t.Fatalf("another key: %v", err)
	}
	if _, err := s.Acquire("c"); !errors.As(err, &full) || full.PerKey || full.Max != 3 {
		t.Fatalf("over the total: %v", err)
	}
	a1()
	a1()
	if s.Open() != 2 {
		t.Fatalf("open after one release called twice: %d, want 2", s.Open())
	}
	if _, err := s.Acquire("a"); err != nil {
		t.Fatalf("after a release: %v", err)
	}
}
