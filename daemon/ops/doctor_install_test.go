package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallCheck: vx doctor tells an npm install that starts Node on
// every call from one whose install script put the native binary in
// place, says how to allow the script (or, under pnpm, what to do
// instead), and gives an npm install off PATH the npx configuration.
func TestInstallCheck(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no vx on PATH
	for _, tc := range []struct {
		name, self, launcher, kind, fix string
	}{
		{"npm, script ran", "/w/node_modules/@vzn/vx/bin/vx", "", installNPMNative, ""},
		{"bun, script blocked", "/w/node_modules/@vzn/vx-linux-x64/bin/vx", "/w/node_modules/@vzn/vx/bin/vx", installNPMLauncher, "bun pm trust @vzn/vx"},
		{"pnpm", "/w/node_modules/.pnpm/@vzn+vx-linux-x64@1.0.0/node_modules/@vzn/vx-linux-x64/bin/vx",
			"/w/node_modules/.pnpm/@vzn+vx@1.0.0/node_modules/@vzn/vx/bin/vx", installNPMLauncher, "release archive"},
		{"archive", "/home/u/.local/bin/vx", "", installStandalone, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := checkInstall(tc.self, tc.launcher)
			if c.Status != CheckOK || !strings.HasPrefix(c.Detail, tc.kind) || !strings.Contains(c.Detail, tc.self) {
				t.Errorf("install check %+v, want ok, %q, naming %s", c, tc.kind, tc.self)
			}
			if (tc.fix == "") != (c.Fix == "") || !strings.Contains(c.Fix, tc.fix) {
				t.Errorf("fix %q, want one saying %q", c.Fix, tc.fix)
			}
			shim, config := checkShim(tc.self, tc.launcher)
			npm := tc.kind != installStandalone
			if npm && (shim.Status != CheckOK || !strings.Contains(config, `"npx"`) || !strings.Contains(config, `"--no"`)) {
				t.Errorf("npm install off PATH: %+v, config %s; want ok and npx --no vx mcp", shim, config)
			}
			if !npm && (shim.Status != CheckProblem || !strings.Contains(config, tc.self)) {
				t.Errorf("standalone off PATH: %+v, config %s; want a problem and the absolute path", shim, config)
			}
		})
	}
	if c := checkInstall("", ""); c.Status != CheckSkipped {
		t.Errorf("unknown executable: %+v, want skipped", c)
	}
}

// TestShimUnderNPX: vx doctor run as `npx vx doctor` (or from a
// package.json script) finds vx on PATH only because npx put the
// workspace's node_modules/.bin there; an MCP client started elsewhere has
// no such PATH, so the configuration is npx's, not a bare "vx".
func TestShimUnderNPX(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "vx"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	shim, config := checkShim("/w/node_modules/@vzn/vx/bin/vx", "")
	if shim.Status != CheckOK || !strings.Contains(config, `"npx"`) || !strings.Contains(config, `"--no"`) {
		t.Errorf("vx found only in node_modules/.bin: %+v, config %s; want ok and npx --no vx mcp", shim, config)
	}
}
