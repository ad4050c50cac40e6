package connlimit

import (
	"fmt"
	"sync"
)

// Slots bound requests of one kind (long-lived streams, reads): at most
// Max open at once, and at most PerKey of them under one key (a token; ""
// for a server with one client identity, where only Max applies). What
// names them in refusals (default "streams").
type Slots struct {
	Max    int
	PerKey int
	What   string

	mu    sync.Mutex
	open  int
	byKey map[string]int
}

// FullError refuses a request over a cap.
type FullError struct {
	What   string
	Max    int
	PerKey bool // the key's cap, not the server's
}

func (e *FullError) Error() string {
	if e.PerKey {
		return fmt.Sprintf("too many %s are open with this token (at most %d at once); wait for one to end", e.What, e.Max)
	}
	return fmt.Sprintf("too many %s are open (at most %d at once, leaving connections for other requests); wait for one to end", e.What, e.Max)
}

// Acquire takes a slot for key, or refuses with a *FullError; release
// gives the slot back (once, however often it is called).
func (s *Slots) Acquire(key string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	what := s.What
	if what == "" {
		what = "streams"
	}
	if s.open >= s.Max {
		return nil, &FullError{What: what, Max: s.Max}
	}
	if s.PerKey > 0 && key != "" && s.byKey[key] >= s.PerKey {
		return nil, &FullError{What: what, Max: s.PerKey, PerKey: true}
	}
	if s.byKey == nil {
		s.byKey = map[string]int{}
	}
	s.open++
	s.byKey[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.open--
			if s.byKey[key]--; s.byKey[key] == 0 {
				delete(s.byKey, key)
			}
		})
	}, nil
}

// Open counts the slots taken.
func (s *Slots) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}
