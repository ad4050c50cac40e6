package runner

import (
	"github.com/vzn/vx/daemon/workspace"
)

// outputGuard keeps two tasks of a run whose declared outputs may name the
// same files (and neither of which depends on the other) from running at
// the same time: at once, one would rewrite a file while the other's
// outputs are being cached, and that entry would not be stored.
type outputGuard struct {
	conflicts map[string][]string
	busy      map[string]bool
}

func newOutputGuard(overlaps []workspace.OutputOverlap) *outputGuard {
	g := &outputGuard{conflicts: map[string][]string{}, busy: map[string]bool{}}
	for _, o := range overlaps {
		a, b := o.Tasks[0], o.Tasks[1]
		g.conflicts[a] = append(g.conflicts[a], b)
		g.conflicts[b] = append(g.conflicts[b], a)
	}
	return g
}

// blocked reports whether a task that may write id's outputs is running.
func (g *outputGuard) blocked(id string) bool {
	for _, other := range g.conflicts[id] {
		if g.busy[other] {
			return true
		}
	}
	return false
}

func (g *outputGuard) start(id string) { g.busy[id] = true }
func (g *outputGuard) done(id string)  { delete(g.busy, id) }

// warnOverlaps says, once per run, which tasks vx keeps apart and why.
func (r *run) warnOverlaps(overlaps []workspace.OutputOverlap) {
	for _, o := range overlaps {
		r.warn("%s and %s may write the same files (outputs %q and %q) and neither depends on the other: vx runs them one at a time, and the one that finishes last leaves its version; give each its own outputs or add a dependsOn between them",
			o.Tasks[0], o.Tasks[1], o.Outputs[0], o.Outputs[1])
	}
}
