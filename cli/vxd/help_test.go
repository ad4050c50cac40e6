package vxd

import (
	"strings"
	"testing"
)

// TestEveryVerbsHelpNamesVXD: the usage and the refusals of each vxd verb
// name vxd, not vx (they share vx's flag parser).
func TestEveryVerbsHelpNamesVXD(t *testing.T) {
	for _, c := range program.Commands {
		t.Run(c.Name, func(t *testing.T) {
			code, out, errs := runVXD(c.Name, "--help")
			if code != 0 || !strings.HasPrefix(out, "usage: vxd "+c.Name) {
				t.Errorf("vxd %s --help: exit %d, stdout %q, stderr %q; want the usage of vxd %s", c.Name, code, out, errs, c.Name)
			}
			code, out, errs = runVXD(c.Name, "--no-such-flag")
			if code != 2 || out != "" || !strings.Contains(errs, "vxd "+c.Name+": unknown flag --no-such-flag") || strings.Contains(errs, " vx "+c.Name) {
				t.Errorf("vxd %s --no-such-flag: exit %d, stdout %q, stderr %q; want exit 2 naming vxd %s", c.Name, code, out, errs, c.Name)
			}
		})
	}
}
