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
		switch {
		case !n.Def.Cache:
			t.Cache = wire.CacheOff
		case force:
			t.Cache = wire.CacheMiss
		default:
			t.Cache = wire.CacheMiss
			if _, err := store.Get(key); err == nil {
				t.Cache = wire.CacheHit
			} else if !errors.Is(err, cache.ErrMiss) && !errors.Is(err, cache.ErrCorrupt) {
				return nil, err
			} else if remoteHits[key] {
				t.Cache, t.CacheSource = wire.CacheHit, wire.CacheSourceRemote
			}
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
	// Longest path through the graph (topological order), no-ops free.
	finish := map[string]int64{}
	prev := map[string]string{}
	var last string
	for _, n := range p.Graph.Nodes {
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
	var path []string
	for id := last; id != ""; id = prev[id] {
		if !p.Graph.ByID[id].Def.NoOp() {
			path = append([]string{id}, path...)
		}
	}
	plan.Predicted.CriticalPath = path
	if last != "" {
		plan.Predicted.WallMs = finish[last]
	}
	if w := int64(max(1, p.Workers)); plan.Predicted.WorkMs/w > plan.Predicted.WallMs {
		plan.Predicted.WallMs = plan.Predicted.WorkMs / w
	}
	return plan, nil
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
