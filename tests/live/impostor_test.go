//go:build !windows

package live_test

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
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// The tests here play another local user who takes the port a killed vxd
// left in its discovery file (tests/internal/impostor, run as another
// uid): it answers every question as vxd would, with made-up answers, and
// records what it is sent.

// impostorSays is how vx names a peer that failed the proof.
func impostorSays(port int) string {
	return fmt.Sprintf("port %d is held by a process that is not this workspace's vxd", port)
}

// killDaemon kills root's vxd with SIGKILL, waits until it is gone and
// answers the discovery file it left behind.
func killDaemon(t *testing.T, root string) *wire.Discovery {
	t.Helper()
	d := readDiscovery(t, root)
	if err := syscall.Kill(d.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, 10*time.Second, "the killed vxd to die", func() bool { return !harness.Alive(d.PID) })
	if _, err := os.Stat(filepath.Join(root, ".vx", "daemon", "vxd.json")); err != nil {
		t.Fatalf("the killed vxd left no discovery file: %v", err)
	}
	return d
}

func readDiscovery(t *testing.T, root string) *wire.Discovery {
	t.Helper()
	var d wire.Discovery
	b, err := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.json"))
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err != nil || d.Port == 0 {
		t.Fatalf("reading the discovery file: %v (%s)", err, b)
	}
	return &d
}

// holdLock takes the workspace's daemon lock as a vxd that is starting
// holds it before it has written its discovery file; the returned func
// lets go.
func holdLock(t *testing.T, root string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, ".vx", "daemon", "vxd.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// wantNoToken fails when the impostor was sent any of the tokens.
func wantNoToken(t *testing.T, im *harness.Impostor, tokens ...string) {
	t.Helper()
	got := im.Requests()
	for _, tok := range tokens {
		if tok != "" && strings.Contains(got, tok) {
			t.Errorf("the impostor was sent the token %s…; what it got:\n%s", tok[:8], got)
		}
	}
}

// wantRealDaemon checks that root's discovery file names a daemon on
// another port than the impostor's that answers with its token, and
// answers that file.
func wantRealDaemon(t *testing.T, root string, im *harness.Impostor) *wire.Discovery {
	t.Helper()
	d := readDiscovery(t, root)
	daemonPIDs.Store(d.PID, root)
	if d.Port == im.Port {
		t.Fatalf("the discovery file still names the impostor's port %d", d.Port)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(d.Port)+"/status", nil)
	req.Header.Set("Authorization", "Bearer "+d.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the new vxd on port %d does not answer: %v", d.Port, err)
	}
	defer resp.Body.Close()
	var st wire.Status
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&st) != nil || st.Workspace != root || st.PID != d.PID {
		t.Fatalf("the new vxd on port %d answered %s: %+v", d.Port, resp.Status, st)
	}
	return d
}

// TestImpostorSteersNoRun: once vxd is killed, a process of another user
// on its port that answers GET /changes "nothing changed" does not make
// `vx run` restore a cached build over an edit: the run sees the edit and
// re-runs the task. Not while no vxd holds the workspace lock (vx does not
// ask), nor while one is starting and holds it (vx asks, the impostor
// cannot prove it is the daemon, and vx says so, as vxd status does). The
// impostor never gets the token.
func TestImpostorSteersNoRun(t *testing.T) {
	harness.NeedOtherUID(t)
	root := journalWorkspace(t)
	if s, _ := journalRun(t, root); executed(s) != "a#build b#build c#build" {
		t.Fatalf("the first run executed %q", executed(s))
	}
	settle()
	waitJournal(t, startDaemon(t, root))
	journalRun(t, root) // saves the journal's token
	if _, how := journalRun(t, root); !strings.HasPrefix(how, "journal:") {
		t.Fatalf("want the run to take unchanged files from vxd's journal; it went: %s", how)
	}
	disc := killDaemon(t, root)
	im := harness.StartImpostor(t, disc.Port, disc.Version, root)

	src, out := filepath.Join(root, "packages/a/src/f0.js"), filepath.Join(root, "packages/a/dist/out.txt")
	edit := func(text string) {
		t.Helper()
		harness.WriteFile(t, src, text)
		s, lines, r := debugRun(t, root, []string{fmt.Sprintf("VX_TEST_JOURNAL_RUN=%d", journalRuns.Add(1))})
		if s.RepeatOf != "" || !strings.Contains(executed(s), "a#build") {
			t.Fatalf("after an edit the run executed %q (repeat of %q): the impostor's answer was taken\n%+v\n%s", executed(s), s.RepeatOf, lines, r)
		}
		if b, _ := os.ReadFile(out); !strings.Contains(string(b), text) {
			t.Fatalf("the build's output lacks the edit %q: %q", text, b)
		}
	}
	edit("export const edited = 1;\n")

	// A vxd that is starting holds the lock before it rewrites the
	// discovery file: vx asks the port, and the impostor fails the proof.
	release := holdLock(t, root)
	harness.WriteFile(t, src, "export const edited = 2;\n")
	r := run(t, root, vxBin, "run", "build", "--format", "json")
	st := run(t, root, vxdBin, "status")
	release()
	if st.Code != 1 || !strings.Contains(st.Stderr, impostorSays(disc.Port)) {
		t.Errorf("vxd status with the impostor on the port: want exit 1 naming it\n%s", st)
	}
	var s wire.RunSummary
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &s) != nil || !strings.Contains(executed(&s), "a#build") || s.RepeatOf != "" {
		t.Fatalf("with the lock held the run took the impostor's answer\n%s", r)
	}
	if !strings.Contains(r.Stderr, impostorSays(disc.Port)) {
		t.Errorf("vx run did not say the port is held by another process\n%s", r)
	}
	if !strings.Contains(im.Requests(), "/changes") {
		t.Errorf("with the lock held vx did not ask the port at all; the impostor got:\n%s", im.Requests())
	}
	wantNoToken(t, im, disc.Token)
}

// TestImpostorGetsNoTokenFromVXDStart: `vxd start` with an impostor on
// the port of the discovery file does not take it for vxd (no daemon
// holds the lock: it is not even asked), never sends it the token, and
// starts a real vxd on another port.
func TestImpostorGetsNoTokenFromVXDStart(t *testing.T) {
	harness.NeedOtherUID(t)
	root := journalWorkspace(t)
	startDaemon(t, root)
	disc := killDaemon(t, root)
	im := harness.StartImpostor(t, disc.Port, disc.Version, root)

	r := run(t, root, vxdBin, "start")
	if r.Code != 0 {
		t.Fatalf("vxd start\n%s", r)
	}
	d := wantRealDaemon(t, root, im)
	if !strings.Contains(r.Stdout, fmt.Sprintf("http://127.0.0.1:%d/mcp", d.Port)) {
		t.Errorf("vxd start did not name the new daemon's port %d\n%s", d.Port, r)
	}
	if st := run(t, root, vxdBin, "status", "--json"); st.Code != 0 || !strings.Contains(st.Stdout, fmt.Sprintf(`"port": %d`, d.Port)) {
		t.Errorf("vxd status after the start\n%s", st)
	}
	wantNoToken(t, im, disc.Token, d.Token)
}

// TestImpostorGetsNoTokenFromShim: `vx mcp` with an impostor on the port
// of the discovery file starts a real vxd on another port; the agent gets
// the real tools, none of the impostor's made-up answers, and the
// impostor never sees a token. The same when the daemon is killed in the
// middle of the session and an impostor takes its port.
func TestImpostorGetsNoTokenFromShim(t *testing.T) {
	harness.NeedOtherUID(t)
	root := journalWorkspace(t)
	startDaemon(t, root)
	disc := killDaemon(t, root)
	im := harness.StartImpostor(t, disc.Port, disc.Version, root)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := shimSession(ctx, t, root, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	defer cs.Close()
	got, _ := json.Marshal([]any{cs.InitializeResult(), tools, listTasks(ctx, t, cs)})
	if strings.Contains(string(got), "evil.sh") || len(tools.Tools) < 2 {
		t.Fatalf("the agent got the impostor's answers, not vxd's: %s", got)
	}
	d := wantRealDaemon(t, root, im)
	wantNoToken(t, im, disc.Token, d.Token)

	// Mid-session: the new vxd is killed and another impostor takes its
	// port before the agent's next call. The shim's connection to it is
	// refused before a request (and its token) goes out, and a new vxd
	// answers the call.
	killDaemon(t, root)
	im2 := harness.StartImpostor(t, d.Port, d.Version, root)
	listTasks(ctx, t, cs)
	d3 := wantRealDaemon(t, root, im2)
	wantNoToken(t, im2, d.Token, d3.Token)
}

// shimSession is an MCP client (the official Go SDK) connected to vxd
// through `vx mcp` in root, as a spawn-per-call agent connects.
func shimSession(ctx context.Context, t *testing.T, root string, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(vxBin, "mcp")
	cmd.Dir, cmd.Env = root, baseEnv()
	c := mcp.NewClient(&mcp.Implementation{Name: "vx-live-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, opts)
	if err != nil {
		t.Fatalf("connecting through vx mcp: %v", err)
	}
	return cs
}

// listTasks calls listTasks and wants vxd's answer: the workspace's tasks,
// nothing of the impostor's.
func listTasks(ctx context.Context, t *testing.T, cs *mcp.ClientSession) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "listTasks", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("listTasks: %v", err)
	}
	if got, _ := json.Marshal(res); strings.Contains(string(got), "evil.sh") || !strings.Contains(string(got), "a#build") {
		t.Fatalf("listTasks answered the impostor's words, not vxd's: %s", got)
	}
	return res
}

// TestImpostorRepeatsNoRun: a run that vxd's journal would let repeat the
// last fully cached one is not repeated on the word of a process that
// holds the dead daemon's port, even while the lock is held (a vxd
// starting): after an edit the run is an ordinary one that sees it.
func TestImpostorRepeatsNoRun(t *testing.T) {
	harness.NeedOtherUID(t)
	root := journalWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	wantNoRepeat(t, root, "vxd's start", "", nil)
	settleRepeat(t, root)
	disc := killDaemon(t, root)
	im := harness.StartImpostor(t, disc.Port, disc.Version, root)
	release := holdLock(t, root)
	defer release()
	harness.WriteFile(t, filepath.Join(root, "packages/c/src/f1.js"), "export const edited = 3;\n")
	wantNoRepeat(t, root, "an edit, with an impostor on the port", "c#build", nil)
	if !strings.Contains(im.Requests(), "/changes") {
		t.Errorf("with the lock held vx did not ask the port at all; the impostor got:\n%s", im.Requests())
	}
	wantNoToken(t, im, disc.Token)
}
