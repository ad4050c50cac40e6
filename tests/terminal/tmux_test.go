package terminal_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// pane is a tmux server of its own (a socket in the test's directory)
// with one detached session of a fixed size.
type pane struct {
	t      *testing.T
	sock   string
	raw    string // every byte the pane received (pipe-pane)
	gate   string // the command waits for this file before it starts
	target string
}

// needTmux skips without tmux outside CI; in CI a missing tmux fails.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tmux is not installed (CI=%s): the live view's tests need it", os.Getenv("CI"))
		}
		t.Skip("tmux is not installed: skipping the terminal tests (install tmux to run them)")
	}
}

// startPane runs command (a shell command line) in dir in a cols×rows
// pane, recording the raw bytes it writes from its first one on.
func startPane(t *testing.T, dir string, cols, rows int, command string) *pane {
	t.Helper()
	needTmux(t)
	tmp := t.TempDir()
	p := &pane{t: t, sock: filepath.Join(tmp, "tmux.sock"), raw: filepath.Join(tmp, "raw"), gate: filepath.Join(tmp, "gate"), target: "vx"}
	script := filepath.Join(tmp, "cmd.sh")
	// The shell outlives a Ctrl-C (a trap, reset for vx) to say how vx exited.
	body := "trap true INT\nwhile [ ! -f " + p.gate + " ]; do sleep 0.02; done\n" + command + "\necho \"VX-EXITED $?\"\nexec sleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	p.tmux("-f", "/dev/null", "new-session", "-d", "-s", p.target, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-c", dir, "sh "+script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	p.tmux("pipe-pane", "-t", p.target, "-o", "cat >> "+p.raw)
	if err := os.WriteFile(p.gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...)
	// The pane's processes inherit the server's environment: not CI's.
	cmd.Env = append(harness.Env("CI", "VX_LOG", "TMUX", "VX_EVENTS_FD"), "TERM=xterm-256color")
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the pane shows now, with the lines that scrolled off.
func (p *pane) screen() string {
	return p.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", p.target)
}

// visible is the pane's screen alone.
func (p *pane) visible() string { return p.tmux("capture-pane", "-p", "-t", p.target) }

// rawBytes is what the pane received so far.
func (p *pane) rawBytes() string {
	b, _ := os.ReadFile(p.raw)
	return string(b)
}

// waitScreen polls the pane until cond holds of its text, and returns
// that text; the deadline only keeps a broken build from hanging.
func (p *pane) waitScreen(what string, cond func(string) bool) string {
	p.t.Helper()
	var s string
	deadline := time.Now().Add(60 * time.Second)
	for {
		if s = p.screen(); cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("gave up waiting for %s; the pane shows:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// resizeBetweenDraws resizes the window to cols×rows while the process
// pid (the one drawing on the pane) is stopped and the pane has taken
// every byte it wrote: a title set through the pane's terminal after them
// shows, so none of its bytes is left to be read at the new width. The
// process goes on at once after.
func (p *pane) resizeBetweenDraws(pid, cols, rows int) {
	p.t.Helper()
	signal := func(sig string) {
		if out, err := exec.Command("kill", "-"+sig, strconv.Itoa(pid)).CombinedOutput(); err != nil {
			p.t.Fatalf("kill -%s %d: %v\n%s", sig, pid, err, out)
		}
	}
	signal("STOP")
	defer signal("CONT")
	tty := strings.TrimSpace(p.tmux("display", "-p", "-t", p.target, "#{pane_tty}"))
	mark := "drained-" + strconv.Itoa(pid)
	if out, err := exec.Command("sh", "-c", `printf '\033]2;%s\007' "$1" > "$2"`, "sh", mark, tty).CombinedOutput(); err != nil {
		p.t.Fatalf("writing a title to %s: %v\n%s", tty, err, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for strings.TrimSpace(p.tmux("display", "-p", "-t", p.target, "#{pane_title}")) != mark {
		if time.Now().After(deadline) {
			p.t.Fatalf("the pane never took the title written after the drawing process's bytes")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.tmux("resize-window", "-t", p.target, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
}

// exited waits for the command to end and returns the pane's text.
func (p *pane) exited() string {
	p.t.Helper()
	return p.waitScreen("vx to exit", func(s string) bool { return strings.Contains(s, "VX-EXITED") })
}
