//go:build !windows

package engine_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEndOfFlags: vx run reads every argument after "--" as a task name,
// never a flag; runTasks and planTasks put the agent's task names there.
func TestEndOfFlags(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	r := vx(t, ws, nil, "run", "--dry=json", "--", "--force")
	if r.Code == 0 || !strings.Contains(r.Stderr, `--force`) || strings.Contains(r.Stderr, "unknown flag") {
		t.Fatalf("vx run -- --force: want a refusal of the task \"--force\"\n%s", r)
	}
	var p struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	}
	decodeOnly(t, vxOK(t, ws, nil, "run", "--dry=json", "--", "build"), &p)
	if len(p.Tasks) == 0 {
		t.Fatalf("vx run --dry=json -- build planned nothing")
	}
}

// TestOutputEditedInPlaceIsRestored: an output rewritten in place with the
// same size and its mtime put back (same inode) is not what vx left: the
// next hit restores it from the cache rather than keep the tampered file.
func TestOutputEditedInPlaceIsRestored(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	runJSON(t, ws, nil, 0, "build")
	out := filepath.Join(ws, "packages", "core", "dist", "index.js")
	orig, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // let the clock move past the stamp's ctime
	tampered := bytes.Repeat([]byte("X"), len(orig))
	f, err := os.OpenFile(out, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(tampered, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(out, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	s, _ := runJSON(t, ws, nil, 0, "build")
	if row := s.row(t, "core#build"); row.Cache != "hit" {
		t.Fatalf("core#build after the edit: cache %s, want a hit (its inputs did not move)", row.Cache)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, orig) {
		t.Errorf("the output edited in place (mtime put back) was kept: %q, want %q restored", got, orig)
	}
}

// lastRun is the part of `vx last --format json` these tests read.
type lastRun struct {
	Run struct {
		ID       string     `json:"id"`
		Status   string     `json:"status"`
		EndedAt  *time.Time `json:"endedAt"`
		ExitCode *int       `json:"exitCode"`
	} `json:"run"`
}

// TestKilledRunIsInterrupted: a vx run killed with -9 never records its
// end; its process being gone, every reader answers it as interrupted,
// and the next vx run records it so (with an end, and no exit code: none
// was seen).
func TestKilledRunIsInterrupted(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "crash")
	cmd := exec.Command(vxBin, "run", "slow")
	cmd.Dir = ws
	cmd.Env = baseEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !exists(filepath.Join(ws, "slow.started")) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("svc#slow never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var before lastRun
	answerJSON(t, ws, &before, "last")
	if before.Run.Status != "running" {
		t.Fatalf("vx last while the run is going: status %q, want running", before.Run.Status)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killLeftIn(ws)

	var read lastRun
	answerJSON(t, ws, &read, "last", "--run", before.Run.ID)
	if read.Run.Status != "interrupted" {
		t.Errorf("vx last after kill -9: status %q, want interrupted", read.Run.Status)
	}
	runJSON(t, ws, nil, 0, "quick")
	var after lastRun
	answerJSON(t, ws, &after, "last", "--run", before.Run.ID)
	if after.Run.Status != "interrupted" || after.Run.EndedAt == nil || after.Run.ExitCode != nil {
		t.Errorf("the killed run after the next vx run: status %q endedAt %v exitCode %v; want interrupted, an end, no exit code",
			after.Run.Status, after.Run.EndedAt, after.Run.ExitCode)
	}
}

// TestCorruptHistoryMovedAside: a .vx/vx.db that is no database (garbage,
// half a file, a directory) never blocks a run: vx run moves it aside,
// says so once, and starts a fresh history. Readers leave it in place.
func TestCorruptHistoryMovedAside(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, db string)
	}{
		{"garbage", func(t *testing.T, db string) {
			writeFiles(t, filepath.Dir(db), map[string]string{"vx.db": strings.Repeat("not a database at all\n", 400)})
		}},
		{"half truncated", func(t *testing.T, db string) {
			b, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(db, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", func(t *testing.T, db string) {
			if err := os.Remove(db); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(db, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "crash")
			runJSON(t, ws, nil, 0, "quick")
			db := filepath.Join(ws, ".vx", "vx.db")
			// A checkpointed file alone, so that half of it is half the history.
			for _, s := range []string{"-wal", "-shm"} {
				os.Remove(db + s)
			}
			tc.corrupt(t, db)
			damaged := historyFiles(t, db)

			r := vx(t, ws, nil, "last")
			if r.Code == 0 || !strings.Contains(r.Stderr, "not a readable database") || !strings.Contains(r.Stderr, "next vx run moves it aside") {
				t.Errorf("vx last on a damaged history: want a refusal saying what the next run does\n%s", r)
			}
			// (SQLite's reader may add an empty -wal and -shm: what counts
			// is the history file itself.)
			if got := historyFiles(t, db); got["vx.db"] != damaged["vx.db"] {
				t.Errorf("a read changed the damaged history: %v, want %v", got, damaged)
			}

			_, r = runJSON(t, ws, nil, 0, "quick")
			if n := strings.Count(r.Stderr, "moved it aside to"); n != 1 {
				t.Errorf("vx run said %d times that it moved the history aside, want once\n%s", n, r)
			}
			aside, _ := filepath.Glob(db + ".corrupt-*")
			if len(aside) == 0 {
				t.Fatalf("no %s.corrupt-TIME next to the fresh history", db)
			}
			if !strings.Contains(r.Stderr, aside[0]) {
				t.Errorf("the warning does not name %s\n%s", aside[0], r)
			}
			_, r = runJSON(t, ws, nil, 0, "quick")
			if strings.Contains(r.Stderr, "moved it aside") {
				t.Errorf("the fresh history was moved aside again\n%s", r)
			}
			var last lastRun
			answerJSON(t, ws, &last, "last")
			if last.Run.Status != "passed" {
				t.Errorf("vx last after the fresh start: %q, want passed", last.Run.Status)
			}
		})
	}
}

// historyFiles maps each file or directory named like the history (db,
// its -wal and -shm, what was moved aside) to its size and digest ("<dir>"
// for a directory).
func historyFiles(t *testing.T, db string) map[string]string {
	t.Helper()
	matches, _ := filepath.Glob(db + "*")
	out := map[string]string{}
	for _, m := range matches {
		st, err := os.Lstat(m)
		if err != nil {
			t.Fatal(err)
		}
		if st.IsDir() {
			out[filepath.Base(m)] = "<dir>"
			continue
		}
		sum := sha256.Sum256([]byte(readFile(t, m)))
		out[filepath.Base(m)] = fmt.Sprintf("%d bytes, sha256 %x", st.Size(), sum[:8])
	}
	return out
}

// TestPeakIsTheTasksOwn: a task lighter than vx (test -s FILE: about 2 MB)
// records no peak at all, not vx's own memory; a task that holds 150 MiB
// records at least that, in the summary and in the history.
func TestPeakIsTheTasksOwn(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "peak")
	var sum struct {
		Tasks []map[string]any `json:"tasks"`
	}
	r := vx(t, ws, nil, "run", "light", "heavy", "--format", "json")
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	decodeOnly(t, r, &sum)
	var last struct {
		Tasks []map[string]any `json:"tasks"`
	}
	answerJSON(t, ws, &last, "last")
	for where, rows := range map[string][]map[string]any{"run summary": sum.Tasks, "vx last": last.Tasks} {
		found := 0
		for _, row := range rows {
			peak, has := row["peakRssBytes"]
			switch row["taskId"] {
			case "p#light":
				found++
				if has {
					t.Errorf("%s: p#light (test -s) records a peak of %v bytes: that is vx's memory, not the task's", where, peak)
				}
			case "p#heavy":
				found++
				if f, _ := peak.(float64); f < 150<<20 {
					t.Errorf("%s: p#heavy (150 MiB buffer) records peak %v, want at least %d", where, peak, 150<<20)
				}
			}
		}
		if found != 2 {
			t.Errorf("%s has %d of the two tasks: %v", where, found, rows)
		}
	}
}

// TestOverlappingOutputsRunApart: two tasks of one project that both
// declare .cache/info.json and do not depend on each other (build and
// typecheck of create-t3-turbo's packages) are reported by vx show and vx
// info, warned about by vx run, and never run at the same time, so each
// one's entry is stored and the next run hits both.
func TestOverlappingOutputsRunApart(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "overlap")
	type overlap struct {
		Project string    `json:"project"`
		Tasks   [2]string `json:"tasks"`
	}
	var show struct {
		OutputOverlaps []overlap `json:"outputOverlaps"`
	}
	answerJSON(t, ws, &show, "show")
	var info struct {
		OutputOverlaps []overlap `json:"outputOverlaps"`
	}
	answerJSON(t, ws, &info, "info")
	want := overlap{Project: "p", Tasks: [2]string{"p#build", "p#typecheck"}}
	for where, got := range map[string][]overlap{"vx show": show.OutputOverlaps, "vx info": info.OutputOverlaps} {
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s outputOverlaps = %+v, want [%+v]", where, got, want)
		}
	}
	if r := vxOK(t, ws, nil, "show", "p#typecheck"); !strings.Contains(r.Stdout, "p#build and p#typecheck may write the same files") {
		t.Errorf("vx show p#typecheck does not name the overlap\n%s", r)
	}

	sum, _ := runJSON(t, ws, nil, 0, "build", "typecheck", "--concurrency", "4")
	warned := false
	for _, w := range sum.Warnings {
		warned = warned || strings.Contains(w, "p#build and p#typecheck may write the same files")
	}
	if !warned {
		t.Errorf("the run does not warn about the overlap: %q", sum.Warnings)
	}
	spans := readSpans(t, ws)
	b, c := spans["build"], spans["typecheck"]
	if b[0] < c[1] && c[0] < b[1] {
		t.Errorf("build %v and typecheck %v ran at the same time", b, c)
	}
	warm, _ := runJSON(t, ws, nil, 0, "build", "typecheck")
	for _, id := range []string{"p#build", "p#typecheck"} {
		if row := warm.row(t, id); row.Cache != "hit" {
			t.Errorf("warm run: %s cache %s (%s), want a hit", id, row.Cache, row.Reason)
		}
	}
}

// TestPassedButNotCachedSaysWhy: a task that passes but whose outputs
// cannot be stored (here a named pipe) says so in its row, the footer and
// the history, and vx why names that reason when the next run misses.
func TestPassedButNotCachedSaysWhy(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "overlap")
	sum, _ := runJSON(t, ws, nil, 0, "pipe")
	row := sum.row(t, "p#pipe")
	if row.Status != "passed" || !strings.Contains(row.Reason, "not cached") || !strings.Contains(row.Reason, "out/pipe") {
		t.Errorf("p#pipe row: status %s reason %q; want passed with the reason it was not cached", row.Status, row.Reason)
	}
	h := vxOK(t, ws, nil, "run", "pipe")
	if !strings.Contains(h.Stdout, "p#pipe: passed, not cached") {
		t.Errorf("the footer does not say p#pipe was not cached\n%s", h)
	}
	var last struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
			Reason string `json:"reason"`
		} `json:"tasks"`
	}
	answerJSON(t, ws, &last, "last")
	if len(last.Tasks) != 1 || !strings.Contains(last.Tasks[0].Reason, "not cached") {
		t.Errorf("vx last: %+v; want p#pipe with the reason it was not cached", last.Tasks)
	}
	var why struct {
		Summary string `json:"summary"`
	}
	answerJSON(t, ws, &why, "why", "p#pipe")
	if !strings.Contains(why.Summary, "not cached") {
		t.Errorf("vx why p#pipe: %q; want the reason the previous execution was not cached", why.Summary)
	}
}

// TestOverlappingOutputsAcrossRuns: two vx runs started together, one
// running build and the other typecheck, do not run those two tasks at
// the same time either.
func TestOverlappingOutputsAcrossRuns(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "overlap")
	var cmds []*exec.Cmd
	for _, task := range []string{"build", "typecheck"} {
		cmd := exec.Command(vxBin, "run", task, "--force")
		cmd.Dir = ws
		cmd.Env = baseEnv()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v", cmd.Args, err)
		}
	}
	spans := readSpans(t, ws)
	b, c := spans["build"], spans["typecheck"]
	if b[0] < c[1] && c[0] < b[1] {
		t.Errorf("build %v and typecheck %v ran at the same time in two vx runs", b, c)
	}
}

// readSpans reads spans.log: each task's start and end, in nanoseconds.
func readSpans(t *testing.T, ws string) map[string][2]int64 {
	t.Helper()
	spans := map[string][2]int64{}
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(ws, "spans.log"))), "\n") {
		var task, what string
		var at int64
		if _, err := fmt.Sscan(line, &task, &what, &at); err != nil {
			t.Fatalf("spans.log line %q: %v", line, err)
		}
		s := spans[task]
		if what == "start" {
			s[0] = at
		} else {
			s[1] = at
		}
		spans[task] = s
	}
	for task, s := range spans {
		if s[0] == 0 || s[1] == 0 {
			t.Fatalf("spans.log lacks the start or end of %s: %v", task, spans)
		}
	}
	return spans
}
