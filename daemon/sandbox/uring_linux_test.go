package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// ringOpen opens argv[1] for writing, creating it, through io_uring
// (IORING_OP_OPENAT): the kernel runs it without a system call of that
// name, so seccomp never sees it, while Landlock judges it.
const ringOpen = `#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int c, char **v) {
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	int fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0) {
		printf("io_uring_setup: errno %d\n", errno);
		return 2;
	}
	size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (cqsz > sqsz) sqsz = cqsz;
	char *sq = mmap(0, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	char *cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP))
		cq = mmap(0, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return 3;
	memset(&sqes[0], 0, sizeof sqes[0]);
	sqes[0].opcode = IORING_OP_OPENAT;
	sqes[0].fd = AT_FDCWD;
	sqes[0].addr = (unsigned long)v[1];
	sqes[0].len = 0644;
	sqes[0].open_flags = O_CREAT | O_WRONLY;
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
	unsigned mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	((unsigned *)(sq + p.sq_off.array))[*tail & mask] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return 4;
	unsigned head = *(unsigned *)(cq + p.cq_off.head);
	unsigned cmask = *(unsigned *)(cq + p.cq_off.ring_mask);
	int res = ((struct io_uring_cqe *)(cq + p.cq_off.cqes))[head & cmask].res;
	printf("openat: %d\n", res);
	return res < 0;
}
`

// A write through io_uring never reaches the seccomp observer, so a task
// could write outside the roots unrecorded in report mode (and be denied
// unrecorded in enforce). Whatever the observer does about it, a file
// created outside is recorded, and a denial is too.
func TestIOURingCannotWriteOutsideUnrecorded(t *testing.T) {
	bin := buildProbe(t, "ring", ringOpen)
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj := filepath.Join(root, "proj")
			mkdirs(t, proj)
			made := filepath.Join(root, "made")
			out, _, vs := confined(t, mode, true, proj, bin+" "+made+"; true")
			_, err := os.Stat(made)
			written := err == nil
			denied := strings.Contains(out, "openat: -13")
			recorded := len(vs) == 1 && vs[0].Path == made
			if (written || denied) && !recorded {
				t.Fatalf("io_uring: written %v, denied %v (%s), violations %+v", written, denied, out, vs)
			}
			if !written && !denied && !strings.Contains(out, "io_uring_setup: errno 38") {
				t.Fatalf("the probe neither wrote nor was refused io_uring (ENOSYS): %s %+v", out, vs)
			}
		})
	}
}
