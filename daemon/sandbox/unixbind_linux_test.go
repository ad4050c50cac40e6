package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// Binding a Unix socket to a path creates a file there (Landlock's
// make_sock right): one bound outside the roots is recorded, whether or
// not the policy allows the network, and one bound inside, or in the
// abstract namespace, is not.
func TestUnixSocketBoundOutsideIsRecorded(t *testing.T) {
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		for _, network := range []bool{true, false} {
			t.Run(mode, func(t *testing.T) {
				root := t.TempDir()
				proj := filepath.Join(root, "proj")
				mkdirs(t, filepath.Join(proj, "dist"))
				cmd := `python3 -c '
import socket
for p in ("dist/in", "\0vx-abstract-probe", "../sock"):
    try:
        socket.socket(socket.AF_UNIX).bind(p)
    except OSError as e:
        print(p, e)
'`
				out, code, vs := confined(t, mode, network, proj, cmd, "dist/**")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, out)
				}
				if _, err := os.Stat(filepath.Join(proj, "dist", "in")); err != nil {
					t.Fatalf("no socket bound inside (%v): %s", err, out)
				}
				sock := filepath.Join(root, "sock")
				_, err := os.Stat(sock)
				if bound := err == nil; bound != (mode == wire.SandboxReport) {
					t.Fatalf("%s bound: %v (%s)", sock, bound, out)
				}
				if len(vs) != 1 || vs[0].Op != opBind || vs[0].Path != sock || vs[0].Address != "" || vs[0].Denied != (mode == wire.SandboxEnforce) || vs[0].Process != "python3" {
					t.Fatalf("network %v: violations = %+v, want one bind of %s by python3", network, vs, sock)
				}
			})
		}
	}
}
