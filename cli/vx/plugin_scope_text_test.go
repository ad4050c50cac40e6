package vx

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/ops"
)

// TestInfoLineShowsPluginScope: vx info's line for a plugin names its
// include and exclude globs, and says nothing of a scope it has none of.
func TestInfoLineShowsPluginScope(t *testing.T) {
	p := ops.InfoPlugin{Plugin: "@vzn/vx-plugin-eslint", Name: "eslint", Version: "1.0.0", Stages: []string{"tasks"}, Tasks: 12, Files: 13,
		Include: []string{"packages/**"}, Exclude: []string{"packages/legacy/**", "!packages/legacy/keep/**"}}
	line := pluginText(p)
	if !strings.Contains(line, "; include packages/**; exclude packages/legacy/** !packages/legacy/keep/**") {
		t.Errorf("vx info line: %s", line)
	}
	p.Include, p.Exclude = nil, nil
	if line := pluginText(p); strings.Contains(line, "include") || strings.Contains(line, "exclude") {
		t.Errorf("vx info line of an unscoped plugin: %s", line)
	}
}
