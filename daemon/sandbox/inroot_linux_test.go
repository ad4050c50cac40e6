package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// inRootOpen opens argv[2] for writing, creating it, with openat2 and
// RESOLVE_IN_ROOT beneath the directory argv[1]: the kernel takes an
// absolute path, "..", and every symlink's target as beneath that
// directory.
const inRootOpen = `#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int c, char **v) {
	struct open_how how;
	int dir = open(v[1], O_PATH | O_DIRECTORY);
	memset(&how, 0, sizeof how);
	how.flags = O_CREAT | O_WRONLY;
	how.mode = 0644;
	how.resolve = RESOLVE_IN_ROOT;
	return dir < 0 || syscall(SYS_openat2, dir, v[2], &how, sizeof how) < 0;
}
`

// openat2 with RESOLVE_IN_ROOT writes beneath its directory descriptor
// whatever the path says: an absolute path naming a file beneath the
// roots, given with a descriptor of a directory outside, creates a file
// outside, which is recorded.
func TestOpenat2InRootIsJudgedBeneathItsDirectory(t *testing.T) {
	bin := buildProbe(t, "inroot", inRootOpen)
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
			dist := filepath.Join(proj, "dist")
			// outside holds the tree of dist's absolute path.
			mkdirs(t, dist, filepath.Join(outside, dist))
			inside := filepath.Join(dist, "in")
			out, _, vs := confined(t, mode, true, proj, bin+" "+proj+" dist/in && "+bin+" "+outside+" "+filepath.Join(dist, "x")+"; true", "dist/**")
			if _, err := os.Stat(inside); err != nil {
				t.Fatalf("the probe did not write inside (%v): %s", err, out)
			}
			made := filepath.Join(outside, dist, "x")
			_, err := os.Stat(made)
			if written := err == nil; written != (mode == wire.SandboxReport) {
				t.Fatalf("%s written: %v", made, written)
			}
			if len(vs) != 1 || vs[0].Path != made || vs[0].Op != opCreate || vs[0].Denied != (mode == wire.SandboxEnforce) {
				t.Fatalf("violations = %+v, want one create of %s", vs, made)
			}
		})
	}
}
