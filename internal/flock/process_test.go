package flock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// holderEnv, set to a path, makes this test binary the other process of
// TestLockOfAKilledProcess: it locks the path, says so, and waits.
const holderEnv = "VX_FLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if path := os.Getenv(holderEnv); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err == nil {
			err = TryLock(f)
		}
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		// Until killed, holding f: once f is unreachable the collector
		// may close it (its finalizer), and closing lets go of the lock.
		for {
			time.Sleep(time.Hour)
			runtime.KeepAlive(f)
		}
	}
	os.Exit(m.Run())
}

// TestLockOfAKilledProcess: a lock another process holds is refused
// here, and is free again once that process is killed (kill -9;
// TerminateProcess on Windows), with nothing let go of by hand.
func TestLockOfAKilledProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), holderEnv+"="+path)
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("the holder said %q (%v), want locked", line, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := TryLock(f); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock while another process holds the lock: %v, want ErrHeld", err)
	}
	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	// The OS lets go of a dead process's locks on its own schedule
	// (Windows says so); the bound only keeps a failure from hanging.
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := TryLock(f)
		if err == nil {
			return
		}
		if !errors.Is(err, ErrHeld) || time.Now().After(deadline) {
			t.Fatalf("TryLock after the holder was killed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
