package ops

import (
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
)

// InfoPlugin is one declared plugin as getWorkspaceInfo and vx info show
// it: what it is, what it offers, what it contributed, its last error.
type InfoPlugin struct {
	Plugin   string   `json:"plugin"` // as declared: a path or a package name
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Entry    string   `json:"entry"`
	Identity string   `json:"identity"` // content hash of its entry, the modules it imports and its package.json
	Stages   []string `json:"stages"`
	Commands []string `json:"commands"`
	// Include and Exclude are its declaration's scope: the globs that
	// limit the files and projects it is sent (absent: none).
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Files   int      `json:"files"` // files its globs matched
	Tasks   int      `json:"tasks"` // tasks it contributed
	Error   string   `json:"error,omitempty"`
	// Stale: the plugin failed and vxd serves its last good answers.
	Stale bool `json:"stale,omitempty"`
}

// infoPlugins lists m's plugins, errors masked.
func infoPlugins(m *workspace.Model, mask *secret.Masker) []InfoPlugin {
	out := []InfoPlugin{}
	for _, s := range m.Plugins() {
		p := InfoPlugin{Plugin: s.Spec, Name: s.Name, Version: s.Version, Entry: s.Entry, Identity: s.Identity,
			Stages: s.Stages, Commands: []string{}, Files: s.Files, Tasks: s.Tasks, Error: mask.String(s.Error), Stale: s.Stale,
			Include: s.Include, Exclude: s.Exclude}
		for _, c := range s.Commands {
			p.Commands = append(p.Commands, c.Name)
		}
		out = append(out, p)
	}
	return out
}
