package workspace_test

import (
	"testing"
)

// TestReferencePluginInfersForRootProject: a project at the workspace
// root is sent with root "." (not ""), and the reference plugin, which
// docs/plugins.md offers as the model client, infers its task from the
// vx-ref.json beside the root package.json as it does in packages/a.
func TestReferencePluginInfersForRootProject(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"projects": [".", "packages/*"], "plugins": ["./tools/ref.mjs"]}`,
		"vx-ref.json":       `{"command": "echo ref root"}`,
	})
	m := mustLoad(t, root)
	ps := m.Plugins()
	if len(ps) != 1 {
		t.Fatalf("%d plugins, want the reference plugin", len(ps))
	}
	if ps[0].Error != "" || ps[0].Tasks != 2 {
		t.Fatalf("the reference plugin inferred %d tasks (error %q), want 2: root's and a's", ps[0].Tasks, ps[0].Error)
	}
	def, defined := m.Resolve("root", "ref")
	if !defined || def.Command != "echo ref root" || def.CommandSource != "plugin" {
		t.Errorf("root#ref: defined %v, command %q from %q; want \"echo ref root\" from the plugin", defined, def.Command, def.CommandSource)
	}
}
