package runner

import (
	"context"
	"errors"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Plan answers a dry run: every task a run would see with its predicted
// cache status, key, dependencies and p50, and the predicted wall and work
// time with the critical path. It executes nothing and writes nothing.
func Plan(ctx context.Context, p *Prepared, force bool) (*wire.Plan, error) {
	root := p.Model.Root
	store, err := cache.Open(layout.Cache(root), &cache.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	hist, err := history.OpenReadOnly(ctx, history.Path(root), nil)
	if err != nil {
		return nil, err
	}
	defer hist.Close()
	var ids []string
	for _, n := range p.Graph.Executable() {
		ids = append(ids, n.ID)
	}
	p50s, err := hist.P50s(ctx, ids)
	if err != nil {
		return nil, err
	}
	plan := &wire.Plan{Tasks: []wire.PlanTask{}, Predicted: wire.PlanPredicted{CriticalPath: []string{}, Unknown: []string{}, Workers: p.Workers}}
	if p.Selected != nil && p.Selected.Reasons != nil {
		plan.Affected = &wire.PlanAffected{Base: p.Selected.Base, Projects: p.Selected.Reasons}
	}
	est := map[string]int64{}
	remoteHits := remotePredictions(ctx, p, store, force)
	for _, n := range p.Graph.Executable() {
		key := p.Keys[n.ID]
		t := wire.PlanTask{TaskID: n.ID, Project: n.Project, Task: n.Task, Command: p.Masker.String(n.Def.Command), Key: key, DependsOn: executableDeps(n)}
		if t.Cache, t.CacheSource, err = cacheVerdict(n, key, store, force, remoteHits); err != nil {
			return nil, err
		}
		if v, ok := p50s[n.ID]; ok {
			v := v
			t.P50Ms = &v
		}
		if p.Selected != nil && p.Selected.Reasons != nil {
			t.Reason = p.Selected.Reasons[n.Project]
		}
		switch {
		case t.Cache == wire.CacheHit:
			est[n.ID] = 0
		case t.P50Ms != nil:
			est[n.ID] = *t.P50Ms
		default:
			plan.Predicted.Unknown = append(plan.Predicted.Unknown, n.ID)
		}
		plan.Predicted.WorkMs += est[n.ID]
		plan.Tasks = append(plan.Tasks, t)
	}
	plan.Predicted.CriticalPath, plan.Predicted.WallMs = criticalPath(p.Graph, est)
	if w := int64(max(1, p.Workers)); plan.Predicted.WorkMs/w > plan.Predicted.WallMs {
		plan.Predicted.WallMs = plan.Predicted.WorkMs / w
	}
	return plan, nil
}

// cacheVerdict is what a run would find of the task in the caches: off,
// a miss (always, with force), a local hit, or a hit on the remote.
func cacheVerdict(n *workspace.Node, key string, store *cache.Store, force bool, remoteHits map[string]bool) (verdict, source string, err error) {
	switch {
	case !n.Def.Cache:
		return wire.CacheOff, "", nil
	case force:
		return wire.CacheMiss, "", nil
	}
	if _, err := store.Get(key); err == nil {
		return wire.CacheHit, "", nil
	} else if !errors.Is(err, cache.ErrMiss) && !errors.Is(err, cache.ErrCorrupt) {
		return "", "", err
	}
	if remoteHits[key] {
		return wire.CacheHit, wire.CacheSourceRemote, nil
	}
	return wire.CacheMiss, "", nil
}

// criticalPath is the longest path through the graph (in topological
// order) with each task taking est, no-ops left out of the path, and the
// time it ends.
func criticalPath(g *workspace.Graph, est map[string]int64) (path []string, wallMs int64) {
	finish := map[string]int64{}
	prev := map[string]string{}
	var last string
	for _, n := range g.Nodes {
		var startAt int64
		for _, d := range n.Deps {
			if finish[d.ID] > startAt || (finish[d.ID] == startAt && prev[n.ID] == "") {
				startAt = finish[d.ID]
				prev[n.ID] = d.ID
			}
		}
		finish[n.ID] = startAt + est[n.ID]
		if last == "" || finish[n.ID] > finish[last] {
			last = n.ID
		}
	}
	for id := last; id != ""; id = prev[id] {
		if !g.ByID[id].Def.NoOp() {
			path = append([]string{id}, path...)
		}
	}
	if last != "" {
		wallMs = finish[last]
	}
	return path, wallMs
}

// executableDeps lists the tasks a node waits for, looking through no-ops.
func executableDeps(n *workspace.Node) []string {
	seen := map[string]bool{}
	out := []string{}
	var walk func(n *workspace.Node)
	walk = func(n *workspace.Node) {
		for _, d := range n.Deps {
			if seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			if d.Def.NoOp() {
				walk(d)
			} else {
				out = append(out, d.ID)
			}
		}
	}
	walk(n)
	return out
}
