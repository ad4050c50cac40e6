package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// daemon is the vxd this program started (vxd serve, a child process).
type daemon struct {
	bin, root string
	cmd       *exec.Cmd
	pid, port int
	token     string
	url       string
	exited    chan struct{}
}

func startDaemon(ctx context.Context, bin, root string) (*daemon, error) {
	disc := layout.Discovery(root)
	os.Remove(disc)
	cmd := exec.Command(bin, "serve", "--root", root, "--idle-timeout", "0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting vxd: %w", err)
	}
	d := &daemon{bin: bin, root: root, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(d.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var dv struct {
			PID   int    `json:"pid"`
			Port  int    `json:"port"`
			Token string `json:"token"`
		}
		if b, err := os.ReadFile(disc); err == nil && json.Unmarshal(b, &dv) == nil && dv.PID == cmd.Process.Pid {
			d.pid, d.port, d.token = dv.PID, dv.Port, dv.Token
			d.url = fmt.Sprintf("http://127.0.0.1:%d%s", d.port, wire.MCPPath)
			return d, nil
		}
		select {
		case <-d.exited:
			return nil, fmt.Errorf("vxd exited before it was ready (see %s)", layout.DaemonLog(root))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("vxd was not ready within a minute")
		}
	}
}

func (d *daemon) stop() {
	select {
	case <-d.exited:
		return
	default:
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(5 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}

// lastReloadMs reads lastReload.durationMs from GET /status.
func (d *daemon) lastReloadMs() (int64, error) {
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", d.port, wire.StatusPath), nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var st struct {
		LastReload struct {
			DurationMs int64 `json:"durationMs"`
		} `json:"lastReload"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return 0, err
	}
	return st.LastReload.DurationMs, nil
}

// status runs `vxd status --json`.
func (d *daemon) status() (map[string]any, error) {
	out, err := exec.Command(d.bin, "status", "--json", "--root", d.root).Output()
	if err != nil {
		return nil, fmt.Errorf("vxd status --json: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("vxd status --json: %w", err)
	}
	return m, nil
}

// cpuTicks is utime+stime of a process, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command, which is in parentheses and may hold spaces.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// f[0] is field 3 (state): utime is field 14, stime field 15.
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st, nil
}

// wakeups sums the context switches of every thread of a process: a
// process that polls wakes up, one that waits does not.
func wakeups(pid int) (threads int, n int64) {
	dirs, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		threads++
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += x
			}
		}
	}
	return threads, n
}

// procStatus reads a kB field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && k == field {
			x, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return x << 10
		}
	}
	return 0
}
