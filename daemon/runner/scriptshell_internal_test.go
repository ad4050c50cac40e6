package runner

import (
	"strings"
	"testing"
)

// TestNetworkDirRefusal: cmd.exe cannot run in a \\server\share directory
// (it would run in the Windows directory instead), so such a task is
// refused naming the directory and the share to map; drive and long
// paths are not.
func TestNetworkDirRefusal(t *testing.T) {
	for _, dir := range []string{`\\server\share\ws\packages\a`, `\\?\UNC\server\share\ws`, `//server/share/ws`} {
		err := networkDirRefusal(dir)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), `net use Z: \\server\share`) {
			t.Errorf("networkDirRefusal(%q) = %v, want a refusal naming it and the share", dir, err)
		}
	}
	for _, dir := range []string{`C:\ws\packages\a`, `\\?\C:\very\long\ws`, "/ws/packages/a"} {
		if err := networkDirRefusal(dir); err != nil {
			t.Errorf("networkDirRefusal(%q) = %v, want none", dir, err)
		}
	}
}
