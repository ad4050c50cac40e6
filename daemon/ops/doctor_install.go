package ops

import (
	"fmt"
	"path/filepath"
	"strings"
)

// NPMLauncherEnv is set by @vzn/vx's Node launcher (npm/vx/lib/launch.js)
// to its own path, in the environment of the vx or vxd it starts.
const NPMLauncherEnv = "VX_NPM_LAUNCHER"

// Install kinds, as the install check names them.
const (
	installNPMNative   = "npm package, native binary"
	installNPMLauncher = "npm package, through the Node launcher"
	installStandalone  = "standalone binary"
)

// installKind is how the vx at self was installed: from an npm package
// (node_modules in its path) with the native binary in the launcher's
// place or started by the launcher (launcher is its path, "" when vx was
// not started that way), or as a binary of its own (a release archive or
// a source build).
func installKind(self, launcher string) string {
	switch {
	case launcher != "":
		return installNPMLauncher
	case inNodeModules(self):
		return installNPMNative
	default:
		return installStandalone
	}
}

func inNodeModules(path string) bool {
	return strings.Contains(filepath.ToSlash(path), "/node_modules/")
}

// checkInstall says how this vx was installed and, for an npm install that
// pays a Node start-up on every call, how to avoid it. It is never a
// problem: the launcher works, only slower.
func checkInstall(self, launcher string) DoctorCheck {
	c := DoctorCheck{Name: "install", Status: CheckOK}
	if self == "" {
		c.Status, c.Detail = CheckSkipped, "the path of this vx is not known"
		return c
	}
	kind := installKind(self, launcher)
	c.Detail = kind + ": " + self
	if kind != installNPMLauncher {
		return c
	}
	c.Detail = fmt.Sprintf("%s %s: every call starts Node (some 40 ms) before %s", kind, launcher, self)
	if strings.Contains(filepath.ToSlash(self), "/node_modules/.pnpm/") {
		c.Fix = "pnpm links package commands through node whatever scripts it allows, so node_modules/.bin/vx always starts Node; " +
			"for a faster vx put a release archive's vx and vxd on PATH (docs/install.md), or call " + self + " directly"
		return c
	}
	c.Fix = "@vzn/vx's install script did not run (it puts the native binaries in place of the launcher): " +
		"with bun, `bun pm trust @vzn/vx`; with npm (ignore-scripts, or scripts not yet allowed), `npm rebuild @vzn/vx` " +
		"after allowing it (`npm install-scripts approve @vzn/vx` where npm asks)"
	return c
}

// npmMCPConfig is the MCP client command for vx installed as a workspace's
// npm dependency and not on PATH: npx finds node_modules/.bin/vx from the
// workspace root, and --no stops it fetching any other package named vx.
func npmMCPConfig() (string, []string) {
	return "npx", []string{"--no", "vx", "mcp"}
}
