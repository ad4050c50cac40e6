package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// i386Open is a program that opens argv[1] with O_CREAT|O_WRONLY through
// int 0x80, i386's system call (5 is open there), from a 64-bit process.
// Its path is copied below 4 GiB (a non-PIE binary's data), as i386's
// arguments are 32 bits.
const i386Open = `#include <string.h>
static char p[4096];
int main(int c, char **v) {
	long r;
	strncpy(p, v[1], sizeof p - 1);
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(5), "b"(p), "c"(0101), "d"(0644) : "memory");
	return r < 0;
}
`

// A 64-bit task on amd64 may make i386's calls (int 0x80): Landlock judges
// them like any other, so the observer must see them too, or a file
// created outside through one is unrecorded (report mode writes it
// silently, enforce denies it without a word).
func TestI386CallsAreObserved(t *testing.T) {
	bin := buildProbe(t, "open32", i386Open, "-no-pie")
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj := filepath.Join(root, "proj")
			mkdirs(t, filepath.Join(proj, "dist"))
			made := filepath.Join(root, "made")
			out, _, vs := confined(t, mode, true, proj, bin+" dist/in; "+bin+" "+made+"; true", "dist/**")
			if _, err := os.Stat(filepath.Join(proj, "dist", "in")); err != nil {
				t.Fatalf("the probe did not write inside (%v): %s", err, out)
			}
			_, err := os.Stat(made)
			if written := err == nil; written != (mode == wire.SandboxReport) {
				t.Fatalf("%s written: %v", made, written)
			}
			if len(vs) != 1 || vs[0].Path != made || vs[0].Op != opCreate || vs[0].Denied != (mode == wire.SandboxEnforce) || vs[0].Process != "open32" {
				t.Fatalf("violations = %+v, want one create of %s by open32", vs, made)
			}
		})
	}
}

// i386SocketcallBind binds a Unix socket to argv[1] through i386's
// socketcall (102, SYS_BIND 2), the way older i386 programs make socket
// calls; its arguments are below 4 GiB.
const i386SocketcallBind = `#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
static struct sockaddr_un sun;
static unsigned args[3];
int main(int c, char **v) {
	long r;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	sun.sun_family = AF_UNIX;
	strncpy(sun.sun_path, v[1], sizeof sun.sun_path - 1);
	args[0] = fd;
	args[1] = (unsigned)(unsigned long)&sun;
	args[2] = sizeof sun;
	/* 102 is i386's socketcall, 2 its SYS_BIND. */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(102), "b"(2), "c"(args) : "memory");
	return fd < 0 || r < 0;
}
`

// A Unix socket bound outside the roots through i386's socketcall is
// recorded as one bound through bind.
func TestI386SocketcallBindIsObserved(t *testing.T) {
	bin := buildProbe(t, "bind32", i386SocketcallBind, "-no-pie")
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	mkdirs(t, filepath.Join(proj, "dist"))
	sock := filepath.Join(root, "sock")
	out, _, vs := confined(t, wire.SandboxReport, true, proj, bin+" dist/in && "+bin+" "+sock+"; true", "dist/**")
	if _, err := os.Stat(filepath.Join(proj, "dist", "in")); err != nil {
		t.Fatalf("the probe did not bind inside (%v): %s", err, out)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("report mode did not bind %s: %v", sock, err)
	}
	if len(vs) != 1 || vs[0].Path != sock || vs[0].Op != opBind || vs[0].Process != "bind32" {
		t.Fatalf("violations = %+v, want one bind of %s by bind32", vs, sock)
	}
}
