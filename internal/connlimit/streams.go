package connlimit

import (
	"fmt"
	"sync"
)

// Streams are the slots of long-lived requests: at most Max open at once,
// and at most PerKey of them under one key (a token; "" for a server
// with one client identity, where only Max applies).
type Streams struct {
	Max    int
	PerKey int

	mu    sync.Mutex
	open  int
	byKey map[string]int
}

// FullError refuses a stream over a cap.
type FullError struct {
	Max    int
	PerKey bool // the key's cap, not the server's
}

func (e *FullError) Error() string {
	if e.PerKey {
		return fmt.Sprintf("too many streams are open with this token (at most %d at once); close one first", e.Max)
	}
	return fmt.Sprintf("too many streams are open (at most %d at once, leaving connections for other requests); close one first", e.Max)
}

// Acquire takes a slot for key, or refuses with a *FullError; release
// gives the slot back (once, however often it is called).
func (s *Streams) Acquire(key string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.Max {
		return nil, &FullError{Max: s.Max}
	}
	if s.PerKey > 0 && key != "" && s.byKey[key] >= s.PerKey {
		return nil, &FullError{Max: s.PerKey, PerKey: true}
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

// Open counts the streams open.
func (s *Streams) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}
