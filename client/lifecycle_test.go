package client_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/internal/flock"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
)

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// servesFor lists the live `vxd serve --root ROOT` processes.
func servesFor(root string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) >= 4 && strings.HasSuffix(args[0], "vxd") && args[1] == "serve" && args[2] == "--root" && args[3] == root {
			out = append(out, pid)
		}
	}
	return out
}

// waitGone waits until pid has exited; the limit only keeps a failing test
// from hanging.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still runs after 15s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends process pid at once (SIGKILL; TerminateProcess on Windows).
func kill(t *testing.T, pid int) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// waitUnlocked waits until no process holds root's daemon lock (a killed
// daemon's leader thread is a zombie before its last thread has let go of
// the lock); the limit only keeps a failing test from hanging.
func waitUnlocked(t *testing.T, root string) {
	t.Helper()
	f, err := os.OpenFile(layout.DaemonLock(root), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	deadline := time.Now().Add(15 * time.Second)
	for flock.TryLock(f) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon lock of %s is still held after 15s", root)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConcurrentEnsureStartsOne: clients racing to start the workspace's
// daemon end with one daemon, and every one of them is handed it.
func TestConcurrentEnsureStartsOne(t *testing.T) {
	root := newWorkspace(t)
	stopAtEnd(t, root)
	const n = 4
	type got struct{ url, token string }
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		outs []got
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &client.Client{Root: root, VXD: vxdBin, Version: version.Version}
			url, token, err := c.Ensure(context.Background(), false)
			if err != nil {
				t.Errorf("Ensure: %v", err)
				return
			}
			mu.Lock()
			outs = append(outs, got{url, token})
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, o := range outs[1:] {
		if o != outs[0] {
			t.Errorf("racing clients were handed different daemons: %+v", outs)
			break
		}
	}
	st, _, err := (&client.Client{Root: root}).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The losers' vxd processes exit at once (the lock refuses them).
	var pids []int
	deadline := time.Now().Add(15 * time.Second)
	for pids = servesFor(root); len(pids) != 1 && time.Now().Before(deadline); pids = servesFor(root) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(pids) != 1 || pids[0] != st.PID {
		t.Errorf("vxd processes serving %s: %v; want only the one the status names (%d)", root, pids, st.PID)
	}
}

// TestKilledDaemonIsReplaced: a daemon killed outright leaves its
// discovery file; the client reads it as a hint only (no daemon holds the
// lock: it does not even ask the port), and Ensure starts a fresh daemon
// that rewrites it.
func TestKilledDaemonIsReplaced(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t)
	stopAtEnd(t, root)
	c := ensureCurrent(t, root)
	first, err := c.Discovery()
	if err != nil {
		t.Fatal(err)
	}
	kill(t, first.PID)
	waitGone(t, first.PID)
	waitUnlocked(t, root)
	if d, err := c.Discovery(); err != nil || d.PID != first.PID {
		t.Fatalf("the killed daemon's discovery file: %+v, %v; want it left in place", d, err)
	}
	if _, _, err := c.Status(ctx); !client.IsNotRunning(err) || !strings.Contains(err.Error(), "no vxd holds the workspace lock") {
		t.Errorf("Status with a dead daemon's discovery file = %v, want not running: no vxd holds the lock", err)
	}
	if stopped, err := c.Stop(ctx); stopped || err != nil {
		t.Errorf("Stop with a dead daemon = %v, %v; want false, nil", stopped, err)
	}
	url, token, err := c.Ensure(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Discovery()
	if err != nil {
		t.Fatal(err)
	}
	if d.PID == first.PID || d.Token == first.Token || token != d.Token || url != "http://127.0.0.1:"+strconv.Itoa(d.Port) {
		t.Errorf("after Ensure: %s %s, discovery %+v; want a new daemon (the dead one was pid %d)", url, token, d, first.PID)
	}
}

// TestReplacedDaemonIsGone: replacing a daemon of another version ends
// its process, leaving only the new one, and a client that insists on no
// version keeps whatever daemon runs.
func TestReplacedDaemonIsGone(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t)
	stopAtEnd(t, root)
	ensureOld(t, root)
	anyVersion := &client.Client{Root: root, VXD: vxdBin}
	if _, _, err := anyVersion.Ensure(ctx, false); err != nil {
		t.Fatal(err)
	}
	old, _, err := anyVersion.Status(ctx)
	if err != nil || old.Version != oldVersion {
		t.Fatalf("a client with no version replaced the running daemon: %+v, %v", old, err)
	}

	c := ensureCurrent(t, root)
	// It has let go of the workspace; its process ends right after.
	waitGone(t, old.PID)
	st, _, err := c.Status(ctx)
	if err != nil || st.Version != version.Version {
		t.Fatalf("status after the replacement %+v, %v", st, err)
	}
	if pids := servesFor(root); len(pids) != 1 || pids[0] != st.PID {
		t.Errorf("vxd processes serving %s: %v; want only %d", root, pids, st.PID)
	}
}

// TestDiscoveryFile: Discovery hands back what the daemon wrote, and a
// discovery file whose token the daemon does not accept is no daemon.
func TestDiscoveryFile(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t)
	stopAtEnd(t, root)
	c := &client.Client{Root: root, VXD: vxdBin, Version: version.Version}
	url, token, err := c.Ensure(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Discovery()
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.Token != token || url != "http://127.0.0.1:"+strconv.Itoa(d.Port) || d.PID != st.PID || d.Version != version.Version || d.Root != root || d.StartedAt.IsZero() {
		t.Errorf("discovery %+v; Ensure gave %s %s, status pid %d", d, url, token, st.PID)
	}
	if fi, err := os.Stat(layout.Discovery(root)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("discovery file: %v, mode %v; want 0600 (it holds the token)", err, fi.Mode().Perm())
	}

	forged := *d
	forged.Token = strings.Repeat("0", len(d.Token))
	b, _ := json.Marshal(forged)
	if err := os.WriteFile(layout.Discovery(root), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Status(ctx); !client.IsNotRunning(err) || !strings.Contains(err.Error(), "401") {
		t.Errorf("Status with a wrong token = %v, want not running: the daemon answered 401", err)
	}
	if stopped, err := c.Stop(ctx); stopped || err != nil {
		t.Errorf("Stop with a wrong token = %v, %v; want false, nil (nothing it may stop)", stopped, err)
	}
	if !alive(st.PID) {
		t.Errorf("the daemon (pid %d) died from a forged discovery file", st.PID)
	}
	// Put the real file back so stopAtEnd can stop the daemon.
	b, _ = json.Marshal(d)
	if err := os.WriteFile(layout.Discovery(root), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
