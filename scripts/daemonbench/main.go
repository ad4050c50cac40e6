// Command daemonbench measures vxd against the specification's speed
// targets (issues 3 and 4, "Speed"), in one run on one machine state:
//
//  1. warm listTasks for one project over HTTP, against a bare net/http
//     handler (the floor) and the official Go SDK serving a trivial tool
//     (both in child processes, like vxd), and against a cold
//     `vx show --filter PROJECT --format json` process;
//  2. how long a vx.workspace.json edit takes to show in getConfig;
//  3. vxd's RSS after all of it, then under hostile input (flood.go), and
//     its CPU over an idle spell;
//  4. getRunHistory, getFailures and whyDidThisRerun on a history of
//     -executions task executions.
//
// It generates a workspace of -projects packages and seeds its history
// through daemon/history (not measured), builds vx and vxd (unless -vx and
// -vxd name binaries), and prints a markdown report on stdout; progress
// goes to stderr. Calls are sequential on one keep-alive connection per
// server, after a warm-up, and the servers are measured in interleaved
// rounds so that drift in machine state hits them alike.
//
//	go run ./scripts/daemonbench -projects 1000 -executions 100000
//
// With -profile-root it instead serves vxd's MCP stack in its own process
// on a workspace and writes a CPU profile of one tool (see profile.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"time"
)

type options struct {
	projects, executions int
	calls, historyCalls  int
	pairRounds           int
	ratioOnly            bool
	coldRuns, edits      int
	idle                 time.Duration
	work, vx, vxd        string
	vxdB                 string
	keep, strict         bool
	seed                 uint64
}

func main() {
	var o options
	serve := flag.String("serve", "", "internal: run a reference server (floor, sdk, sdk-json) in this process")
	flag.IntVar(&o.projects, "projects", 1000, "packages in the generated workspace")
	flag.IntVar(&o.executions, "executions", 100000, "task executions seeded into the history (20 per run)")
	flag.IntVar(&o.calls, "calls", 2000, "measured calls per server in the listTasks comparison")
	flag.IntVar(&o.pairRounds, "pair-rounds", 10, "rounds of the tool-call ratio (listTasks and the same-bytes handler, paired call by call); -calls are split among them")
	flag.StringVar(&o.vxdB, "vxd-b", "", "with -ratio-only: a second vxd binary, served on a copy of the workspace and measured in the same interleaved rounds (A/B)")
	flag.BoolVar(&o.ratioOnly, "ratio-only", false, "measure only the tool-call ratio (paired rounds) and the servers' CPU per call")
	flag.IntVar(&o.historyCalls, "history-calls", 250, "measured calls per history tool")
	flag.IntVar(&o.coldRuns, "cold-runs", 20, "measured cold vx show processes")
	flag.IntVar(&o.edits, "edits", 40, "config edits timed")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "idle spell over which vxd's CPU time is read")
	flag.StringVar(&o.work, "work", "", "work directory (default: a temporary one, removed after); a workspace seeded there before with the same -projects, -executions and -seed is reused")
	flag.StringVar(&o.vx, "vx", "", "vx binary to measure (default: go build ./cmd/vx into the work directory)")
	flag.StringVar(&o.vxd, "vxd", "", "vxd binary to measure (default: go build ./cmd/vxd into the work directory)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary work directory")
	flag.BoolVar(&o.strict, "strict", false, "exit 1 when a target is missed")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the workspace graph and the history")
	profRoot := flag.String("profile-root", "", "instead of the benchmark: serve vxd's MCP stack in this process on this workspace and profile one tool (see profile.go)")
	profTool := flag.String("profile-tool", "getRunHistory", "with -profile-root: the tool to call")
	profArgs := flag.String("profile-args", `{"limit":50}`, "with -profile-root: the tool's arguments (a JSON object)")
	profOut := flag.String("cpuprofile", "cpu.pprof", "with -profile-root: where to write the CPU profile")
	profN := flag.Int("profile-calls", 200, "with -profile-root: calls profiled")
	flag.Parse()
	if o.pairRounds < 1 || o.calls/o.pairRounds < 1 {
		fmt.Fprintf(os.Stderr, "daemonbench: -pair-rounds %d with -calls %d: want at least one round and one call per round\n", o.pairRounds, o.calls)
		os.Exit(2)
	}
	if *profRoot != "" {
		if err := profileTool(*profRoot, *profTool, *profArgs, *profOut, *profN); err != nil {
			fmt.Fprintln(os.Stderr, "daemonbench:", err)
			os.Exit(1)
		}
		return
	}
	if *serve != "" {
		if err := serveChild(*serve); err != nil {
			fmt.Fprintln(os.Stderr, "daemonbench:", err)
			os.Exit(1)
		}
		return
	}
	missed, err := run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemonbench:", err)
		os.Exit(1)
	}
	if missed > 0 && o.strict {
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "daemonbench: "+format+"\n", args...)
}

// moduleRoot is the directory of the go.mod this program is built from.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run daemonbench from inside the vx module")
	}
	return filepath.Dir(gomod), nil
}

func buildBinaries(o *options, bin string) error {
	if o.vx != "" && o.vxd != "" {
		return nil
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	for _, c := range []struct {
		out *string
		pkg string
	}{{&o.vx, "./cmd/vx"}, {&o.vxd, "./cmd/vxd"}} {
		if *c.out != "" {
			continue
		}
		*c.out = filepath.Join(bin, filepath.Base(c.pkg))
		cmd := exec.Command("go", "build", "-o", *c.out, c.pkg)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stderr, os.Stderr
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", c.pkg, err)
		}
	}
	return nil
}

// row is one line of the report.
type row struct {
	name, n, p50, p99, note, target, verdict string
}

type report struct {
	loadStart string
	rows      []row
	missed    int
	notes     []string
	summary   []string // the headline figures, repeated under the table
}

func (r *report) add(x row) { r.rows = append(r.rows, x) }

func (r *report) check(ok bool) string {
	if ok {
		return "met"
	}
	r.missed++
	return "**missed**"
}

// loadavg is the 1-minute load average: other work on the machine shows
// in the tails.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return f[0]
}

func machine() string {
	model := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("nproc %d, %s%s, %s %s/%s", runtime.NumCPU(), model, kernel, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func run(ctx context.Context, o options) (int, error) {
	began := time.Now()
	work := o.work
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "daemonbench-"); err != nil {
			return 0, err
		}
		if !o.keep {
			defer os.RemoveAll(work)
		} else {
			logf("work directory %s kept", work)
		}
	}
	work, _ = filepath.Abs(work)
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		return 0, err
	}
	logf("building vx and vxd")
	if err := buildBinaries(&o, filepath.Join(work, "bin")); err != nil {
		return 0, err
	}

	// The workspace and its history (not measured).
	ws := filepath.Join(work, "ws")
	projects := graph(o.projects, o.seed)
	marker := filepath.Join(work, fmt.Sprintf("seeded-%d-%d-%d.json", o.projects, o.executions, o.seed))
	var seeded struct {
		Stats  seedStats
		Target whyTarget
	}
	if b, err := os.ReadFile(marker); err == nil && json.Unmarshal(b, &seeded) == nil {
		logf("reusing the workspace and history in %s", ws)
		if err := os.WriteFile(filepath.Join(ws, "vx.workspace.json"), workspaceConfig(), 0o644); err != nil {
			return 0, err
		}
	} else {
		os.RemoveAll(ws)
		logf("generating %d packages in %s", o.projects, ws)
		if err := generate(ws, projects); err != nil {
			return 0, fmt.Errorf("generating the workspace: %w", err)
		}
		logf("seeding %d executions into the history", o.executions)
		st, target, err := seedHistory(ctx, ws, projects, o.executions, o.seed)
		if err != nil {
			return 0, err
		}
		seeded.Stats, seeded.Target = *st, target
		b, _ := json.Marshal(seeded)
		_ = os.WriteFile(marker, b, 0o644)
	}
	st := seeded.Stats
	logf("history: %d runs (%d failed), %d executions (%d passed, %d hits, %d failed, %d timed out, %d blocked), %d key components, seeded in %s",
		st.Runs, st.FailedRuns, st.Executions, st.Passed, st.Hits, st.Failed, st.TimedOut, st.Blocked, st.Components, st.Took.Round(time.Millisecond))

	d, err := startDaemon(ctx, o.vxd, ws)
	if err != nil {
		return 0, err
	}
	defer d.stop()

	rep := &report{loadStart: loadavg()}
	b := &bench{o: o, ws: ws, d: d, rep: rep, project: projectName(o.projects / 2)}
	steps := []func() error{b.listTasks, b.coldShow, b.history(seeded.Target), b.configEdits, b.memory, b.flood, b.idleCPU}
	if o.ratioOnly {
		steps = []func() error{b.ratioOnly}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return 0, err
		}
	}
	printReport(o, rep, st, time.Since(began))
	return rep.missed, nil
}

func printReport(o options, rep *report, st seedStats, took time.Duration) {
	fmt.Printf("## vxd speed (scripts/daemonbench)\n\n")
	fmt.Printf("Machine: %s; load average %s at the start, %s at the end.  \n", machine(), rep.loadStart, loadavg())
	fmt.Printf("Workspace: %d generated packages (scripts build/test, up to 3 deps each); history: %d runs, %d executions (%d failed, %d timed out, %d blocked, %d cache hits), %d key components.  \n",
		o.projects, st.Runs, st.Executions, st.Failed, st.TimedOut, st.Blocked, st.Hits, st.Components)
	fmt.Printf("Command: `%s` (whole run %s, seeding %s of it).\n\n",
		strings.Join(append([]string{"go run ./scripts/daemonbench"}, os.Args[1:]...), " "), took.Round(time.Second), st.Took.Round(time.Second))
	fmt.Println("| measurement | n | p50 | p99 | notes | target | result |")
	fmt.Println("|---|---:|---:|---:|---|---|---|")
	for _, r := range rep.rows {
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", r.name, r.n, r.p50, r.p99, r.note, r.target, r.verdict)
	}
	if len(rep.summary) > 0 {
		fmt.Println()
		for _, l := range rep.summary {
			fmt.Println(l + "  ")
		}
	}
	if len(rep.notes) > 0 {
		fmt.Println()
		for _, n := range rep.notes {
			fmt.Println("- " + n)
		}
	}
}

// sameAnswer compares the parts of two vx show / listTasks answers that
// describe the workspace.
func sameAnswer(a, b []byte) (bool, error) {
	var x, y map[string]any
	if err := json.Unmarshal(a, &x); err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false, err
	}
	for _, k := range []string{"root", "projects", "global", "rootTasks"} {
		if !reflect.DeepEqual(x[k], y[k]) {
			return false, nil
		}
	}
	return true, nil
}
