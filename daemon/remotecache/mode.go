package remotecache

import (
	"fmt"
	"strings"
)

// Mode says which caches a run reads and writes: --cache in Turborepo's
// syntax, "local:rw,remote:r". A side left out is off.
type Mode struct {
	LocalRead, LocalWrite   bool
	RemoteRead, RemoteWrite bool
}

// DefaultMode reads and writes both caches.
func DefaultMode() Mode { return Mode{true, true, true, true} }

// ParseMode parses a --cache value.
func ParseMode(s string) (Mode, error) {
	var m Mode
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		side, perm, ok := strings.Cut(part, ":")
		if !ok {
			return Mode{}, fmt.Errorf("--cache=%s: %q has no permission; use local:rw,remote:rw (r, w, rw, or nothing after the colon for off)", s, part)
		}
		if seen[side] {
			return Mode{}, fmt.Errorf("--cache=%s: %s is given twice", s, side)
		}
		seen[side] = true
		var r, w bool
		switch perm {
		case "":
		case "r":
			r = true
		case "w":
			w = true
		case "rw", "wr":
			r, w = true, true
		default:
			return Mode{}, fmt.Errorf("--cache=%s: %q is not a permission (use r, w, rw, or nothing for off)", s, perm)
		}
		switch side {
		case "local":
			m.LocalRead, m.LocalWrite = r, w
		case "remote":
			m.RemoteRead, m.RemoteWrite = r, w
		default:
			return Mode{}, fmt.Errorf("--cache=%s: %q is not a cache (use local and remote)", s, side)
		}
	}
	return m, nil
}

// String renders m in the flag's syntax.
func (m Mode) String() string {
	perm := func(r, w bool) string {
		s := ""
		if r {
			s += "r"
		}
		if w {
			s += "w"
		}
		return s
	}
	return "local:" + perm(m.LocalRead, m.LocalWrite) + ",remote:" + perm(m.RemoteRead, m.RemoteWrite)
}
