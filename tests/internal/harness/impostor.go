//go:build unix

package harness

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ImpostorUID is the uid the impostor runs as: one no account uses (none
// is needed to run a process as a uid).
const ImpostorUID = 64123

// NeedOtherUID skips a test that must run a process as another user when
// this process may not (it is not root); with CI=true it fails instead.
func NeedOtherUID(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("this test runs a process as another uid and needs root (CI=true: not skipped)")
	}
	t.Skip("not root: cannot run a process as another uid (run the tests as root, or with CI=true to make this a failure)")
}

// Impostor is tests/internal/impostor running as ImpostorUID on a port
// a killed vxd left: it answers as vxd would, with made-up answers, and
// records every request it gets.
type Impostor struct {
	Port int
	cmd  *exec.Cmd
	out  *SyncBuffer
}

// StartImpostor builds the impostor, starts it as ImpostorUID on port
// claiming version and root, and waits until it listens; it is killed at
// the test's end.
func StartImpostor(t *testing.T, port int, version, root string) *Impostor {
	t.Helper()
	NeedOtherUID(t)
	dir, err := os.MkdirTemp("", "vx-impostor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The other uid must reach the binary.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "impostor")
	if err := Build(bin, "./tests/internal/impostor"); err != nil {
		t.Fatal(err)
	}
	im := &Impostor{Port: port, out: &SyncBuffer{}}
	im.cmd = exec.Command(bin, "-port", strconv.Itoa(port), "-version", version, "-root", root)
	im.cmd.Dir = dir
	im.cmd.Stdout, im.cmd.Stderr = im.out, im.out
	im.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: ImpostorUID, Gid: ImpostorUID}}
	if err := im.cmd.Start(); err != nil {
		t.Fatalf("starting the impostor as uid %d: %v", ImpostorUID, err)
	}
	exited := make(chan struct{})
	go func() { _ = im.cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = im.cmd.Process.Kill(); <-exited })
	want := "listening on " + strconv.Itoa(port) + " as uid " + strconv.Itoa(ImpostorUID)
	WaitFor(t, 20*time.Second, "the impostor to listen on port "+strconv.Itoa(port), func() bool {
		select {
		case <-exited:
			t.Fatalf("the impostor exited:\n%s", im.out.String())
		default:
		}
		return strings.Contains(im.out.String(), want)
	})
	return im
}

// Requests is every request the impostor got, as it recorded them.
func (im *Impostor) Requests() string { return im.out.String() }

// SyncBuffer is a bytes.Buffer a process writes while a test reads.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
