package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/vzn/vx/protocol/wire"
	"golang.org/x/sys/unix"
)

// noClone3Env, set, makes TestStdinSurvivesTheFallbackStart refuse clone3
// in the test process itself (as a container's filter does) and run
// its tasks there.
const noClone3Env = "VX_SANDBOX_TEST_NO_CLONE3"

// refuseClone3 makes clone3 fail with ENOSYS on every thread of this
// process, as Docker's default seccomp profile does so that libc falls
// back to clone.
func refuseClone3(t *testing.T) {
	t.Helper()
	const auditArchX86_64 = 0xc000003e
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4}, // arch
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: auditArchX86_64, Jt: 0, Jf: 3},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_CLONE3, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); e != 0 {
		t.Fatalf("installing a filter refusing clone3: %v", e)
	}
}

// Where the kernel (or a container's filter) refuses clone3, the forked
// start gives up after preparing the task's standard streams, and the
// task is started from a confined thread by os/exec instead. What the
// task reads from a Stdin reader must reach it then: the abandoned start
// must not have begun copying it into a pipe the task never gets.
func TestStdinSurvivesTheFallbackStart(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		return // no forked start to fall back from
	}
	if os.Getenv(noClone3Env) == "" {
		// Run in a process of its own: the filter cannot be taken back.
		cmd := exec.Command(os.Args[0], "-test.run=^TestStdinSurvivesTheFallbackStart$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), noClone3Env+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("with clone3 refused: %v\n%s", err, out)
		}
		return
	}
	refuseClone3(t)
	dir := t.TempDir()
	for i := range 20 {
		for _, mode := range []string{wire.SandboxEnforce, wire.SandboxReport} {
			var out bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", "cat")
			cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, strings.NewReader("hello\n"), &out, &out
			v := Detect()
			dirs, files := WriteRoots(dir, []string{"dist/**"}, "")
			p := &Policy{Landlock: mode == wire.SandboxEnforce, Observe: true, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
			p.Resolve()
			s, err := Start(cmd, p)
			if err != nil {
				t.Fatalf("start %d (%s): %v", i, mode, err)
			}
			if s.io != nil {
				t.Fatalf("start %d (%s): forked although clone3 is refused", i, mode)
			}
			err = s.Wait()
			s.Finish()
			if err != nil || out.String() != "hello\n" {
				t.Fatalf("start %d (%s): Wait = %v, the task read %q from its stdin, want %q", i, mode, err, out.String(), "hello\n")
			}
		}
	}
}
