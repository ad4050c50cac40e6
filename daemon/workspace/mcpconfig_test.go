package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPlanTTL(t *testing.T) {
	for _, tc := range []struct {
		mcp  string
		want time.Duration
		err  string
	}{
		{``, DefaultPlanTTL, ""},
		{`,"mcp":{"planTtl":"90s","requirePlan":true}`, 90 * time.Second, ""},
		{`,"mcp":{"planTtl":"1s"}`, 0, `mcp.planTtl: "1s" is not a plan lifetime`},
		{`,"mcp":{"planTtl":"soon"}`, 0, `mcp.planTtl: "soon"`},
		{`,"mcp":{"planTtl":"48h"}`, 0, "from 10s to 24h0m0s"},
	} {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, ConfigFile), []byte(`{"projects":[]`+tc.mcp+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(root)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.mcp, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.mcp, err)
		}
		if got := m.Config.MCP.PlanTTLDuration(); got != tc.want {
			t.Errorf("%s: planTtl %v, want %v", tc.mcp, got, tc.want)
		}
	}
}

// TestConfirmValues: mcp.confirm is false, true or "outside"; anything
// else fails the configuration, naming the key and the values.
func TestConfirmValues(t *testing.T) {
	for _, tc := range []struct {
		mcp  string
		want MCPConfirm
		err  string
	}{
		{``, MCPConfirm{}, ""},
		{`,"mcp":{"confirm":false}`, MCPConfirm{}, ""},
		{`,"mcp":{"confirm":true}`, MCPConfirm{On: true}, ""},
		{`,"mcp":{"confirm":"outside"}`, MCPConfirm{On: true, Outside: true}, ""},
		{`,"mcp":{"confirm":"always"}`, MCPConfirm{}, `mcp.confirm: expected true, false or "outside"`},
		{`,"mcp":{"confirm":1}`, MCPConfirm{}, `mcp.confirm: expected true, false or "outside"`},
	} {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, ConfigFile), []byte(`{"projects":[]`+tc.mcp+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(root)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.mcp, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.mcp, err)
		}
		if m.Config.MCP.Confirm != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.mcp, m.Config.MCP.Confirm, tc.want)
		}
	}
}
