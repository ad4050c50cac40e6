package lockfile

import (
	"sort"

	"github.com/vzn/vx/daemon/workspace"
)

// lockedPlugin is one declared plugin as vx.lock records it: the tasks it
// infers follow from its code, so a changed plugin is drift to review.
type lockedPlugin struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Identity string `json:"identity"` // content hash of its entry, the modules it imports and its package.json
}

// lockPlugins records m's plugins by their declaration (nil when none,
// so a workspace without plugins keeps its vx.lock unchanged).
func lockPlugins(m *workspace.Model) map[string]lockedPlugin {
	ps := m.Plugins()
	if len(ps) == 0 {
		return nil
	}
	out := map[string]lockedPlugin{}
	for _, s := range ps {
		out[s.Spec] = lockedPlugin{Name: s.Name, Version: s.Version, Identity: s.Identity}
	}
	return out
}

// diffPlugins reports each plugin added, removed or changed since the lock.
func diffPlugins(locked, cur map[string]lockedPlugin) []Problem {
	specs := map[string]bool{}
	for s := range locked {
		specs[s] = true
	}
	for s := range cur {
		specs[s] = true
	}
	sorted := make([]string, 0, len(specs))
	for s := range specs {
		sorted = append(sorted, s)
	}
	sort.Strings(sorted)
	var out []Problem
	for _, s := range sorted {
		l, inLock := locked[s]
		c, inCur := cur[s]
		switch {
		case !inLock:
			out = append(out, Problem{Plugin: s, Field: "plugin", Locked: "(absent)", Current: c.Name + " " + c.Version})
		case !inCur:
			out = append(out, Problem{Plugin: s, Field: "plugin", Locked: l.Name + " " + l.Version, Current: "(absent)"})
		default:
			if l.Version != c.Version {
				out = append(out, Problem{Plugin: s, Field: "version", Locked: l.Version, Current: c.Version})
			}
			if l.Identity != c.Identity {
				out = append(out, Problem{Plugin: s, Field: "identity", Locked: l.Identity, Current: c.Identity})
			}
		}
	}
	return out
}
