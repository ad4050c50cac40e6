package runner

import (
	"fmt"
	"slices"

	"github.com/vzn/vx/daemon/workspace"
)

// outputGuard keeps two tasks of a run whose declared outputs may name the
// same files (and neither of which depends on the other) from running at
// the same time: at once, one would rewrite a file while the other's
// outputs are being cached, and that entry would not be stored.
//
// Within a run the scheduler asks blocked before starting a task; across
// runs (two vx processes) each task of an overlapping group also holds the
// group's lock file while it runs.
type outputGuard struct {
	conflicts map[string][]string
	busy      map[string]bool   // scheduler only
	group     map[string]string // task id → its group's smallest task id
}

// newOutputGuard keeps the run's overlapping pairs apart; all (the pairs
// among every task of the workspace, since another run may run the other
// task of a pair; none when no task of the run is in one, RunOverlaps)
// makes the lock groups.
func newOutputGuard(run, all []workspace.OutputOverlap) *outputGuard {
	g := &outputGuard{conflicts: map[string][]string{}, busy: map[string]bool{}, group: map[string]string{}}
	for _, o := range run {
		a, b := o.Tasks[0], o.Tasks[1]
		g.conflicts[a] = append(g.conflicts[a], b)
		g.conflicts[b] = append(g.conflicts[b], a)
	}
	pairs := map[string][]string{}
	for _, o := range all {
		a, b := o.Tasks[0], o.Tasks[1]
		pairs[a] = append(pairs[a], b)
		pairs[b] = append(pairs[b], a)
	}
	// Groups are the connected pairs; the smallest id names each.
	for id := range pairs {
		if _, done := g.group[id]; done {
			continue
		}
		members, stack := []string{}, []string{id}
		seen := map[string]bool{id: true}
		least := id
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			members = append(members, n)
			least = min(least, n)
			for _, o := range pairs[n] {
				if !seen[o] {
					seen[o] = true
					stack = append(stack, o)
				}
			}
		}
		for _, m := range members {
			g.group[m] = least
		}
	}
	return g
}

// lockName is the lock file id's group holds while one of it runs, or ""
// for a task that overlaps nothing.
func (g *outputGuard) lockName(id string) string {
	if least, ok := g.group[id]; ok {
		return "outputs-of-" + least
	}
	return ""
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

// yields says whether n should let a queued task of its overlap start
// first: n has no dependents and that one has, so starting n first would
// hold them back for all of n's run (create-t3-turbo's api#typecheck
// before api#build delayed three apps' typecheck by its whole duration).
func (s *scheduler) yields(n *workspace.Node) bool {
	if len(s.dependents[n.Index]) > 0 || len(s.r.guard.conflicts[n.ID]) == 0 {
		return false
	}
	for _, q := range s.queue {
		if q != n && len(s.dependents[q.Index]) > 0 && slices.Contains(s.r.guard.conflicts[n.ID], q.ID) && !s.r.guard.blocked(q.ID) {
			return true
		}
	}
	return false
}

func (g *outputGuard) start(id string) { g.busy[id] = true }
func (g *outputGuard) done(id string)  { delete(g.busy, id) }

// warnOverlaps says, in one line each, which tasks of the run vx keeps
// apart (vx show --overlaps says why), once: an overlap already said for
// the same definitions (both tasks' outputs and dependencies) is not said
// again, so no later run, cached or not, repeats it.
func (r *run) warnOverlaps(overlaps []workspace.OutputOverlap) {
	if len(overlaps) == 0 {
		return // the common case: no definition to describe
	}
	defs := map[string]string{}
	for _, n := range r.p.Graph.Nodes {
		deps := make([]string, len(n.Deps))
		for i, d := range n.Deps {
			deps[i] = d.ID
		}
		defs[n.ID] = fmt.Sprintf("%q %q", n.Def.Outputs, deps)
	}
	for _, o := range overlaps {
		key := noticeKey("overlap", o.Tasks[0], o.Tasks[1], defs[o.Tasks[0]], defs[o.Tasks[1]])
		if r.notices.said(key) {
			continue
		}
		r.warn("%s and %s may write the same files: run one at a time (vx show --overlaps)", o.Tasks[0], o.Tasks[1])
		r.notices.remember(key)
	}
}
