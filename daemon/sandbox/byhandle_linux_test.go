package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// handleOpen appends to argv[1] through a file handle: name_to_handle_at
// (a lookup, no write) then open_by_handle_at for writing, which names no
// path. It takes CAP_DAC_READ_SEARCH, which a task run as root has.
const handleOpen = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int main(int c, char **v) {
	struct file_handle *fh = malloc(sizeof *fh + MAX_HANDLE_SZ);
	int id, fd, mnt = open(v[1], O_RDONLY);
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (mnt < 0 || name_to_handle_at(AT_FDCWD, v[1], fh, &id, 0) < 0) return 2;
	fd = open_by_handle_at(mnt, fh, O_WRONLY | O_APPEND);
	return fd < 0 || write(fd, "x\n", 2) != 2;
}
`

// open_by_handle_at opens a file for writing by its handle, with no path
// the observer could read: a root task writing an outside file that way is
// recorded (Landlock judges the open like any other).
func TestOpenByHandleForWritingIsRecorded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("open_by_handle_at needs CAP_DAC_READ_SEARCH; this runs as uid", os.Geteuid())
	}
	bin := buildProbe(t, "byhandle", handleOpen)
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj := filepath.Join(root, "proj")
			mkdirs(t, filepath.Join(proj, "dist"))
			victim := filepath.Join(root, "victim")
			if err := os.WriteFile(victim, []byte("v\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _, vs := confined(t, mode, true, proj, "echo i > dist/in && "+bin+" dist/in && "+bin+" "+victim+"; true", "dist/**")
			if b, _ := os.ReadFile(filepath.Join(proj, "dist", "in")); string(b) != "i\nx\n" {
				t.Fatalf("the probe did not write inside: %q %s", b, out)
			}
			b, _ := os.ReadFile(victim)
			if written := string(b) == "v\nx\n"; written != (mode == wire.SandboxReport) {
				t.Fatalf("%s written: %v (%q)", victim, written, b)
			}
			if len(vs) != 1 || vs[0].Path != victim || vs[0].Op != opWrite || vs[0].Denied != (mode == wire.SandboxEnforce) || vs[0].Process != "byhandle" {
				t.Fatalf("violations = %+v, want one write of %s by byhandle", vs, victim)
			}
		})
	}
}
