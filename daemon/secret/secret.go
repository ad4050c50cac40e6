// Package secret masks the values of secret variables in every text vx
// writes: logs, summaries, errors and tool answers.
package secret

import (
	"sort"
	"strings"
	"sync"
)

// Mask is what a secret value reads as.
const Mask = "***"

// Masker replaces known secret values with ***. The zero value masks
// nothing; a nil *Masker is valid.
type Masker struct {
	mu     sync.RWMutex
	values []string
	r      *strings.Replacer
	gen    uint64 // counts Add calls (Generation)
}

// NewMasker masks the given values; empty ones are ignored.
func NewMasker(values ...string) *Masker {
	m := &Masker{}
	m.Add(values...)
	return m
}

// Add registers more values. It is safe while other goroutines mask.
func (m *Masker) Add(values ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	seen := map[string]bool{}
	for _, v := range m.values {
		seen[v] = true
	}
	for _, v := range values {
		if v != "" && !seen[v] {
			seen[v] = true
			m.values = append(m.values, v)
		}
	}
	// Longest first, so a secret containing another is masked whole.
	sort.Slice(m.values, func(i, j int) bool { return len(m.values[i]) > len(m.values[j]) })
	pairs := make([]string, 0, 2*len(m.values))
	for _, v := range m.values {
		pairs = append(pairs, v, Mask)
	}
	m.r = strings.NewReplacer(pairs...)
}

// Empty reports whether there is nothing to mask.
func (m *Masker) Empty() bool {
	if m == nil {
		return true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.values) == 0
}

// String masks s.
func (m *Masker) String(s string) string {
	if m == nil {
		return s
	}
	m.mu.RLock()
	r := m.r
	m.mu.RUnlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// Bytes masks b.
func (m *Masker) Bytes(b []byte) []byte {
	if m.Empty() {
		return b
	}
	return []byte(m.String(string(b)))
}

// MultiLineHold is how many bytes of streamed output must wait before
// being printed so that a secret spanning lines is masked whole: the
// longest such secret's length, or 0 when no secret holds a newline.
func (m *Masker) MultiLineHold() int {
	if m == nil {
		return 0
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	hold := 0
	for _, v := range m.values {
		if strings.ContainsRune(v, '\n') && len(v) > hold {
			hold = len(v)
		}
	}
	return hold
}
