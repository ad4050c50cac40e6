// Package taskkey defines a task's cache key as a hash over named
// components, and the diff of two component sets that answers "why did
// this task re-run".
package taskkey

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/vzn/vx/internal/digest"
)

// Version joins every key; bump it when the key's meaning changes.
const Version = "vx-key/1"

// Components are the named parts of a task's cache key.
type Components struct {
	Runner     string            `json:"runner"`
	Global     map[string]string `json:"global"`     // global input path → content hash
	Definition map[string]string `json:"definition"` // field → canonical value
	Env        map[string]string `json:"env"`        // variable → hash of its value ("" when unset)
	Files      map[string]string `json:"files"`      // project-relative path → content hash
	Deps       map[string]string `json:"deps"`       // upstream task id → its key
}

// Key hashes the components in a canonical order.
func (c *Components) Key() string {
	key, _ := c.KeyAndEncode()
	return key
}

// KeyAndEncode answers the key and the encoding the history stores, from
// one serialisation (maps marshal with sorted keys).
func (c *Components) KeyAndEncode() (string, []byte) {
	b, _ := json.Marshal(c)
	return digest.Sum(b)[:32], b
}

// EncodeBeforeDeps is the encoding of every component but Deps (as if
// empty), which KeyAndEncodeWith completes: the part of a key that does
// not wait for the upstream keys, so callers can encode it in parallel.
func (c *Components) EncodeBeforeDeps() []byte {
	return c.appendBeforeDeps(make([]byte, 0, 256+64*(len(c.Files)+len(c.Global))))
}

// depsNull ends EncodeBeforeDeps: Deps is the last field.
const depsNull = `"deps":null}`

// KeyAndEncodeWith is KeyAndEncode from before, c's EncodeBeforeDeps
// (taken before c.Deps was filled in): the same key and encoding.
func (c *Components) KeyAndEncodeWith(before []byte) (string, []byte) {
	if !bytes.HasSuffix(before, []byte(depsNull)) {
		return c.KeyAndEncode()
	}
	head := len(before) - len("null}")
	b := make([]byte, 0, head+2+64*len(c.Deps))
	b = append(appendMap(append(b, before[:head]...), c.Deps), '}')
	return digest.Sum(b)[:32], b
}

// Encode serialises the components for the history store.
func (c *Components) Encode() []byte {
	b, _ := json.Marshal(c)
	return b
}

// Decode reads components written by Encode.
func Decode(b []byte) (*Components, error) {
	var c Components
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Change is one changed named value.
type Change struct {
	Name   string `json:"name"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// SetDiff is what moved in one map of components.
type SetDiff struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// Empty reports whether nothing moved.
func (d SetDiff) Empty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// Diff is what differs between two executions' components.
type Diff struct {
	Runner     *Change  `json:"runner,omitempty"`
	Files      SetDiff  `json:"files"`
	Global     SetDiff  `json:"globalInputs"`
	Env        SetDiff  `json:"env"` // names only: values are never shown
	Definition []Change `json:"definition"`
	Upstream   SetDiff  `json:"upstream"` // task ids whose keys moved
}

// Empty reports whether nothing differs.
func (d *Diff) Empty() bool {
	return d.Runner == nil && d.Files.Empty() && d.Global.Empty() && d.Env.Empty() && len(d.Definition) == 0 && d.Upstream.Empty()
}

// OwnInputsMoved reports whether the task's own inputs moved, as opposed to
// only its upstream keys.
func (d *Diff) OwnInputsMoved() bool {
	return d.Runner != nil || !d.Files.Empty() || !d.Global.Empty() || !d.Env.Empty() || len(d.Definition) > 0
}

// Compare diffs prev against cur.
func Compare(prev, cur *Components) *Diff {
	d := &Diff{Definition: []Change{}}
	if prev.Runner != cur.Runner {
		d.Runner = &Change{Name: "runner", Before: prev.Runner, After: cur.Runner}
	}
	d.Files = diffMaps(prev.Files, cur.Files)
	d.Global = diffMaps(prev.Global, cur.Global)
	d.Env = diffMaps(prev.Env, cur.Env)
	d.Upstream = diffMaps(prev.Deps, cur.Deps)
	for _, name := range unionKeys(prev.Definition, cur.Definition) {
		b, a := prev.Definition[name], cur.Definition[name]
		if a != b {
			d.Definition = append(d.Definition, Change{Name: name, Before: b, After: a})
		}
	}
	return d
}

func diffMaps(prev, cur map[string]string) SetDiff {
	d := SetDiff{Added: []string{}, Removed: []string{}, Changed: []string{}}
	for _, k := range unionKeys(prev, cur) {
		b, inPrev := prev[k]
		a, inCur := cur[k]
		switch {
		case !inPrev:
			d.Added = append(d.Added, k)
		case !inCur:
			d.Removed = append(d.Removed, k)
		case a != b:
			d.Changed = append(d.Changed, k)
		}
	}
	return d
}

func unionKeys(a, b map[string]string) []string {
	set := make(map[string]bool, len(a)+len(b))
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	return slices.Sorted(maps.Keys(set))
}
