//go:build !windows

package parity_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokenConfig: with a vx.workspace.json that does not load, vx info
// and vx doctor still answer, and say what getWorkspaceInfo and diagnose
// say: the error with its file and position.
func TestBrokenConfig(t *testing.T) {
	root := workspace(t, "ws")
	cfg := filepath.Join(root, "vx.workspace.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(b), `"outputs": ["dist/**"] },`, `"outputs": ["dist/**"] ,`, 1)
	if broken == string(b) {
		t.Fatal("testdata/ws/vx.workspace.json changed: the edit that breaks it no longer applies")
	}
	if err := os.WriteFile(cfg, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	endpoint, token := startDaemon(t, root)
	cs := connect(t, endpoint, token, revStateless)
	for _, r := range []row{
		{tool: "getWorkspaceInfo", args: map[string]any{}, verb: []string{"info", "--format", "json"}, ignore: daemonLive, holds: `vx.workspace.json:`},
		{tool: "diagnose", args: map[string]any{}, verb: []string{"doctor", "--format", "json"}, code: 1, holds: `vx.workspace.json:`},
		{tool: "getWorkspaceInfo", args: map[string]any{}, verb: []string{"status", "--format", "json"}, vxd: true, part: "daemon", ignore: statusLive, holds: `"configError"`},
	} {
		t.Run(r.name(), func(t *testing.T) { checkRow(t, cs, root, r) })
	}
}
