//go:build !darwin

package vxd

import (
	"os/exec"
	"strings"
)

// browserAvailable reports whether a desktop session (X11 or Wayland)
// and xdg-open are there; over ssh or on a server there is none.
func browserAvailable(environ []string) bool {
	display := false
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if (k == "DISPLAY" || k == "WAYLAND_DISPLAY") && v != "" {
			display = true
		}
	}
	_, err := exec.LookPath("xdg-open")
	return display && err == nil
}

// openBrowser opens a local file in the default browser.
func openBrowser(path string) error { return exec.Command("xdg-open", path).Start() }
