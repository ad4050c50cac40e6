//go:build !windows

package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/history"
)

// The shortcuts of a fully cached run (docs/benchmarks.md, "Where a no-op
// run's time goes") must never hide a change from the next run.

// TestSavedManifestsSeeEdits: once a load has saved the decoded
// package.json files (.vx/manifests, reused while each stats the same),
// an edited script, one edited with its mtime put back, an added project
// and a removed one are all seen by the next run.
func TestSavedManifestsSeeEdits(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	saved := filepath.Join(ws, ".vx", "manifests")
	runJSON(t, ws, nil, 0, "build")
	// Manifests are saved only when their stat is older than 2 s.
	settle := func() {
		time.Sleep(2100 * time.Millisecond)
		vxOK(t, ws, nil, "run", "build")
		st, err := os.Stat(saved)
		if err != nil {
			t.Fatalf("a run on settled manifests saved none: %v", err)
		}
		vxOK(t, ws, nil, "run", "build")
		if again, err := os.Stat(saved); err != nil || !again.ModTime().Equal(st.ModTime()) {
			t.Fatalf("the next run did not reuse the saved manifests (%v)", err)
		}
	}
	docs := filepath.Join(ws, "apps", "docs", "package.json")
	setScript := func(from, to string) {
		b := readFile(t, docs)
		i := strings.Index(b, "echo "+from)
		if i < 0 {
			t.Fatalf("apps/docs/package.json has no %q: %s", "echo "+from, b)
		}
		b = b[:i] + "echo " + to + b[i+len("echo "+from):]
		if err := os.WriteFile(docs, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	settle()
	setScript("built", "BUILT")
	r := vxOK(t, ws, nil, "run", "build")
	if !strings.Contains(r.Stdout, "docs#build: BUILT docs") {
		t.Errorf("an edited script: the next run did not run it\n%s", r)
	}

	settle()
	st, err := os.Stat(docs)
	if err != nil {
		t.Fatal(err)
	}
	setScript("BUILT", "Built") // the same size
	if err := os.Chtimes(docs, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	r = vxOK(t, ws, nil, "run", "build")
	if !strings.Contains(r.Stdout, "docs#build: Built docs") {
		t.Errorf("a script edited to the same size with its mtime put back: the next run did not run it\n%s", r)
	}

	settle()
	writeFiles(t, ws, map[string]string{
		"apps/extra/package.json": `{"name": "extra", "scripts": {"build": "mkdir -p dist && echo x > dist/x && echo extra built"}}`,
		"apps/extra/src/x.js":     "export {};\n",
	})
	s, _ := runJSON(t, ws, nil, 0, "build")
	if row := s.row(t, "extra#build"); row.Status != "passed" || row.Cache != "miss" {
		t.Errorf("an added project: extra#build %s/%s, want passed/miss", row.Status, row.Cache)
	}

	settle()
	if err := os.RemoveAll(filepath.Join(ws, "apps", "extra")); err != nil {
		t.Fatal(err)
	}
	s, _ = runJSON(t, ws, nil, 0, "build")
	for _, id := range s.ids() {
		if id == "extra#build" {
			t.Errorf("a removed project: the next run still ran extra#build (%v)", s.ids())
		}
	}
}

// TestSavedManifestsTornFileIsIgnored: a damaged .vx/manifests is not
// trusted; the run loads every manifest from its file and saves a whole one.
func TestSavedManifestsTornFileIsIgnored(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	runJSON(t, ws, nil, 0, "build")
	time.Sleep(2100 * time.Millisecond)
	vxOK(t, ws, nil, "run", "build")
	saved := filepath.Join(ws, ".vx", "manifests")
	b := readFile(t, saved)
	if err := os.WriteFile(saved, []byte(b[:len(b)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	setScript := filepath.Join(ws, "apps", "docs", "package.json")
	text := strings.Replace(readFile(t, setScript), "echo built", "echo again", 1)
	if err := os.WriteFile(setScript, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := vxOK(t, ws, nil, "run", "build")
	if !strings.Contains(r.Stdout, "docs#build: again docs") {
		t.Errorf("after a torn manifests file the run did not see the edited script\n%s", r)
	}
	if got := readFile(t, saved); got == b[:len(b)/2] {
		t.Errorf("the torn manifests file was left as it was")
	}
}

// TestEarlyStartLeavesNoHistory: vx run opens the history while the
// workspace loads only where one exists; a dry run, and a command line
// refused once the workspace loaded, create none.
func TestEarlyStartLeavesNoHistory(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	runJSON(t, ws, nil, 0, "build")
	db := filepath.Join(ws, ".vx", "vx.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	vxOK(t, ws, nil, "run", "build", "--dry")
	if exists(db) {
		t.Errorf("a dry run created the history")
	}
	if r := vx(t, ws, nil, "run", "biuld"); r.Code == 0 {
		t.Fatalf("an unknown task: want an error\n%s", r)
	}
	if exists(db) {
		t.Errorf("a refused command line created the history")
	}
	// Where the history exists, a refused command records no run in it.
	s, _ := runJSON(t, ws, nil, 0, "build")
	if r := vx(t, ws, nil, "run", "biuld"); r.Code == 0 {
		t.Fatalf("an unknown task: want an error\n%s", r)
	}
	var list struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	answerJSON(t, ws, &list, "last", "--list")
	if len(list.Runs) != 1 || list.Runs[0].ID != s.RunID {
		t.Errorf("runs recorded: %+v, want only %s", list.Runs, s.RunID)
	}
}

// TestManyHitsAllRecorded: the history writer records executions in
// batches (what its periodic tick finds pending, then the rest at the
// end; 200 rows a statement); every one of a run of more tasks than a
// statement holds, cold or fully cached, is recorded once.
func TestManyHitsAllRecorded(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	const n = 300
	files := map[string]string{
		"vx.workspace.json": `{"projects": ["packages/*"], "tasks": {"build": {"outputs": ["out.txt"]}}}`,
	}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("packages/p%03d/package.json", i)] = fmt.Sprintf(`{"name": "p%03d", "scripts": {"build": "echo %d > out.txt"}}`, i, i)
	}
	writeFiles(t, ws, files)
	cold, _ := runJSON(t, ws, nil, 0, "build")
	warm, _ := runJSON(t, ws, nil, 0, "build")
	if missed := misses(warm); len(missed) > 0 {
		t.Fatalf("the warm run missed %v", missed)
	}
	h, err := history.OpenReadOnly(context.Background(), history.Path(ws), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, s := range []*summary{cold, warm} {
		execs, err := h.Executions(context.Background(), s.RunID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range execs {
			got = append(got, e.TaskID)
		}
		sort.Strings(got)
		want := s.ids()
		if len(got) != n || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("run %s: %d executions recorded, want each of its %d tasks once", s.RunID, len(got), len(want))
		}
	}
}
