package terminal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vzn/vx/tests/internal/harness"
)

// workspace writes a workspace whose projects' build scripts are given
// (project → script) under config's top-level keys (a JSON fragment,
// may be empty). Each task runs in its project's directory, so a task
// waits for the test with `until [ -f ../../release ]`.
func workspace(t *testing.T, config string, scripts map[string]string) string {
	t.Helper()
	dir := harness.TempRoot(t)
	if config != "" {
		config = ", " + config
	}
	harness.WriteFile(t, filepath.Join(dir, "vx.workspace.json"),
		`{"projects": ["p/*"], "workers": 8, "tasks": {"build": {"cache": false}}`+config+`}`)
	for name, script := range scripts {
		harness.WriteFile(t, filepath.Join(dir, "p", name, "package.json"),
			fmt.Sprintf(`{"name": %q, "scripts": {"build": %q}}`, name, script))
	}
	return dir
}

// waiting is a build script that prints, waits for the test's release,
// and prints again.
func waiting(name string) string {
	return "echo " + name + " waiting; until [ -f ../../release ]; do sleep 0.05; done; echo " + name + " released"
}

func release(t *testing.T, dir string) {
	t.Helper()
	harness.WriteFile(t, filepath.Join(dir, "release"), "")
}

// runningLine is a running task's row in the status area, with its
// elapsed time.
var runningLine = regexp.MustCompile(`(?m)^  [b-z]#build  \d+s`)

// TestLiveViewShowsProgress: on a terminal vx run shows, under the task
// lines, how many tasks of the run are done and each running task with
// its elapsed time; when the run ends the area is gone, the task lines
// and the summary are there, and the cursor shows again.
func TestLiveViewShowsProgress(t *testing.T) {
	dir := workspace(t, "", map[string]string{
		"a": "echo a says hello", "b": waiting("b"), "c": waiting("c"), "d": waiting("d"),
	})
	p := startPane(t, dir, 100, 30, vxBin+" run build")
	mid := p.waitScreen(`"1 of 4 done" and a running task`, func(s string) bool {
		return strings.Contains(s, "1 of 4 done") && runningLine.MatchString(s)
	})
	if !strings.Contains(mid, "a#build: a says hello") {
		t.Errorf("task output is not above the status area mid-run:\n%s", mid)
	}
	lines := nonEmpty(p.visible())
	if i := indexOf(lines, "1 of 4 done"); i < 0 || i < len(lines)-4 {
		t.Errorf("the status area is not at the bottom of the pane:\n%s", strings.Join(lines, "\n"))
	}
	release(t, dir)
	end := p.exited()
	for _, want := range []string{"a#build: a says hello", "b#build: b released", "d#build: d released", "Tasks:  4 passed", "VX-EXITED 0"} {
		if !strings.Contains(end, want) {
			t.Errorf("the pane lacks %q at the end:\n%s", want, end)
		}
	}
	if strings.Contains(end, " of 4 done") || runningLine.MatchString(end) {
		t.Errorf("the status area is still on the screen after the run:\n%s", end)
	}
	if !strings.Contains(p.rawBytes(), "\x1b[") {
		t.Errorf("vx drew nothing with escape sequences on a terminal")
	}
	if c := strings.TrimSpace(p.tmux("display", "-p", "-t", p.target, "#{cursor_flag}")); c != "1" {
		t.Errorf("the cursor is hidden after the run (cursor_flag %s)", c)
	}
}

// TestLiveViewPredictsTimeLeft: with a history, the area says how long
// the run has left and each running task's p50.
func TestLiveViewPredictsTimeLeft(t *testing.T) {
	dir := workspace(t, "", map[string]string{"b": waiting("b"), "c": waiting("c")})
	release(t, dir)
	env := harness.Env("CI", "VX_LOG", "VX_EVENTS_FD")
	if r := harness.Run(t, dir, env, vxBin, "run", "build"); r.Code != 0 {
		t.Fatalf("the run that makes the history: %s", r)
	}
	if err := os.Remove(filepath.Join(dir, "release")); err != nil {
		t.Fatal(err)
	}
	p := startPane(t, dir, 100, 30, vxBin+" run build")
	p.waitScreen("the time left and a p50", func(s string) bool {
		return regexp.MustCompile(`0 of 2 done · 2 running · \d+s · ~\d+s left`).MatchString(s) &&
			regexp.MustCompile(`(?m)^  [bc]#build  \d+s \(p50 \d+s\)`).MatchString(s)
	})
	release(t, dir)
	if end := p.exited(); strings.Contains(end, " left") || !strings.Contains(end, "Tasks:  2 passed") {
		t.Errorf("after the run the area is there or the summary is not:\n%s", end)
	}
}

// TestLiveViewNarrowAndCrowded: on a narrow, short terminal no row of the
// area wraps, and running tasks past the room it has are "+k more".
func TestLiveViewNarrowAndCrowded(t *testing.T) {
	scripts := map[string]string{}
	for _, n := range []string{"b", "c", "d", "e", "f", "g"} {
		scripts[n] = waiting(n)
	}
	dir := workspace(t, "", scripts)
	const cols = 40
	p := startPane(t, dir, cols, 12, vxBin+" run build")
	mid := p.waitScreen("six running tasks", func(s string) bool { return strings.Contains(s, "6 running") && strings.Contains(s, " more") })
	for _, l := range strings.Split(mid, "\n") {
		if strings.Contains(l, "running") && utf8.RuneCountInString(l) >= cols {
			t.Errorf("the status line %q is not cut to the pane's %d columns", l, cols)
		}
	}
	if !regexp.MustCompile(`(?m)^  \+\d+ more$`).MatchString(mid) {
		t.Errorf("no \"+k more\" row for the tasks the area has no room for:\n%s", mid)
	}
	release(t, dir)
	end := p.exited()
	if strings.Contains(end, " running") || !strings.Contains(end, "Tasks:  6 passed") {
		t.Errorf("after the run the area is there or the summary is not:\n%s", end)
	}
}

// TestLiveViewFollowsResize: a terminal made narrower mid-run (tmux wraps
// the rows that no longer fit) gets an area cut to its new width, and
// nothing of the area is left on it after the run.
//
// The resize comes between two of vx's redraws: once the tasks' first
// lines are drawn above the area (vx has nothing more to write until its
// clock turns a second), with vx stopped and every byte it wrote read by
// the pane (resizeBetweenDraws). A resize that lands while a redraw's
// bytes are on their way has the terminal read them at the new width
// though vx wrote them for the old (tmux even wraps its screen before it
// tells the pane's terminal the new size): their erase misses the rows
// the wrapping added, and no program drawing in place can know which
// width its bytes will meet (docs/cli.md).
func TestLiveViewFollowsResize(t *testing.T) {
	dir := workspace(t, "", map[string]string{"b": waiting("b"), "c": waiting("c")})
	pidFile := filepath.Join(t.TempDir(), "vx.pid")
	p := startPane(t, dir, 100, 30, "sh -c 'echo $$ > "+pidFile+" && exec "+vxBin+" run build'")
	p.waitScreen("the area under the tasks' first lines", func(s string) bool {
		return regexp.MustCompile(`(?s)b waiting.*0 of 2 done · 2 running · `).MatchString(s) &&
			regexp.MustCompile(`(?s)c waiting.*0 of 2 done · 2 running · `).MatchString(s)
	})
	b, err := os.ReadFile(pidFile)
	pid, convErr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || convErr != nil {
		t.Fatalf("vx's pid: %v %v %q", err, convErr, b)
	}
	p.resizeBetweenDraws(pid, 24, 30)
	p.waitScreen("the area cut to 24 columns", func(s string) bool {
		return regexp.MustCompile(`(?m)^vx  0 of 2 done · [^\n]*…$`).MatchString(s)
	})
	release(t, dir)
	if end := p.exited(); strings.Contains(end, "of 2 done") || !strings.Contains(end, "2 passed") {
		t.Errorf("after the run the area, or part of it, is there or the summary is not:\n%s", end)
	}
}

// TestLiveViewAtTopLeavesNoScrollback: an area drawn on the pane's first
// row (a fresh terminal, tasks that print nothing until the end) is erased
// where it stands when it is redrawn and when the run ends, not pushed into
// the scrollback: tmux keeps a screen cleared from its top-left corner in
// its history (scroll-on-clear), where a person scrolling back would find
// stale copies of the area.
func TestLiveViewAtTopLeavesNoScrollback(t *testing.T) {
	silent := "until [ -f ../../release ]; do sleep 0.05; done"
	dir := workspace(t, "", map[string]string{"b": silent, "c": silent})
	p := startPane(t, dir, 100, 30, vxBin+" run build")
	p.waitScreen("the area on the first row", func(s string) bool { return strings.HasPrefix(s, "vx  0 of 2 done · 2 running · 0s") })
	mid := p.waitScreen("the area redrawn with a second gone", func(s string) bool { return strings.Contains(s, "0 of 2 done · 2 running · 1s") })
	if n := strings.Count(mid, "of 2 done"); n != 1 {
		t.Errorf("the pane and its scrollback hold %d copies of the area, not one:\n%s", n, mid)
	}
	release(t, dir)
	if end := p.exited(); strings.Contains(end, "of 2 done") || !strings.Contains(end, "2 passed") {
		t.Errorf("after the run the area is in the pane or its scrollback, or the summary is not:\n%s", end)
	}
}

// TestInterruptLeavesTerminalClean: Ctrl-C mid-run ends vx with the area
// cleared, the summary of an interrupted run printed and the cursor shown.
func TestInterruptLeavesTerminalClean(t *testing.T) {
	dir := workspace(t, "", map[string]string{"b": waiting("b"), "c": waiting("c")})
	p := startPane(t, dir, 100, 30, vxBin+" run build")
	p.waitScreen("two running tasks", func(s string) bool { return strings.Contains(s, "0 of 2 done") && runningLine.MatchString(s) })
	p.tmux("send-keys", "-t", p.target, "C-c")
	end := p.exited()
	if strings.Contains(end, " of 2 done") || runningLine.MatchString(end) {
		t.Errorf("the status area is left on the screen after Ctrl-C:\n%s", end)
	}
	if !strings.Contains(end, "interrupted") || strings.Contains(end, "VX-EXITED 0") {
		t.Errorf("no interrupted run's summary, or exit 0, after Ctrl-C:\n%s", end)
	}
	if c := strings.TrimSpace(p.tmux("display", "-p", "-t", p.target, "#{cursor_flag}")); c != "1" {
		t.Errorf("the cursor is hidden after Ctrl-C (cursor_flag %s)", c)
	}
}

// TestStreamHasNoEscapes: where the live view does not belong (a pipe,
// CI, a dumb terminal) or was turned off (--ui stream, "ui": "stream"),
// vx run prints its task lines and summary without one escape sequence.
func TestStreamHasNoEscapes(t *testing.T) {
	scripts := map[string]string{"a": "echo a starts; sleep 0.5; echo a ends", "b": "echo b starts; sleep 0.5; echo b ends"}
	t.Run("pipe, even with --ui tui", func(t *testing.T) {
		dir := workspace(t, "", scripts)
		env := append(harness.Env("CI", "VX_LOG", "VX_EVENTS_FD"), "TERM=xterm-256color")
		r := harness.Run(t, dir, env, vxBin, "run", "build", "--ui", "tui")
		if r.Code != 0 {
			t.Fatalf("vx run: %s", r)
		}
		checkPlain(t, r.Stdout+r.Stderr)
	})
	for _, tc := range []struct{ name, config, command string }{
		{"CI=true", "", "CI=true " + vxBin + " run build"},
		{"TERM=dumb", "", "TERM=dumb " + vxBin + " run build"},
		{"--ui stream", "", vxBin + " run build --ui stream"},
		{`"ui": "stream"`, `"ui": "stream"`, vxBin + " run build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := workspace(t, tc.config, scripts)
			p := startPane(t, dir, 100, 30, tc.command)
			end := p.exited()
			if !strings.Contains(end, "VX-EXITED 0") {
				t.Fatalf("vx run failed:\n%s", end)
			}
			checkPlain(t, p.rawBytes())
		})
	}
}

// checkPlain fails unless out has the task lines and summary and no ESC.
func checkPlain(t *testing.T, out string) {
	t.Helper()
	if i := strings.IndexByte(out, 0x1b); i >= 0 {
		t.Errorf("an escape sequence at byte %d: %q", i, out[max(0, i-20):min(len(out), i+20)])
	}
	for _, want := range []string{"a#build: a starts", "b#build: b ends", "Tasks:  2 passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestUIRefusals: a ui that is neither tui nor stream, on the command line
// or in the config, is refused (exit 2) naming the value.
func TestUIRefusals(t *testing.T) {
	env := harness.Env("CI", "VX_LOG", "VX_EVENTS_FD")
	dir := workspace(t, "", map[string]string{"a": "true"})
	if r := harness.Run(t, dir, env, vxBin, "run", "build", "--ui", "fancy"); r.Code != 2 || !strings.Contains(r.Stderr, `"fancy"`) {
		t.Errorf("--ui fancy: %s", r)
	}
	dir = workspace(t, `"ui": "fancy"`, map[string]string{"a": "true"})
	if r := harness.Run(t, dir, env, vxBin, "run", "build"); r.Code != 2 || !strings.Contains(r.Stderr, `"fancy"`) {
		t.Errorf(`"ui": "fancy": %s`, r)
	}
}

func nonEmpty(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func indexOf(lines []string, sub string) int {
	for i, l := range lines {
		if strings.Contains(l, sub) {
			return i
		}
	}
	return -1
}
