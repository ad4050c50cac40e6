//go:build !windows

package windows_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// journalRun is vx.exe run build --format json with vxd up and the debug
// log, in an environment no run had before (so that it does not repeat an
// earlier run but lists the files); it answers each task's cache state and
// how the run took the files (the "change journal" log line).
func journalRun(t *testing.T, ws string, n int) (cache map[string]string, how string) {
	t.Helper()
	cmd := wineDaemonCmd(t, ws, filepath.Join(windowsBinaries(t), "vx.exe"), "run", "build", "--format", "json")
	cmd.Env = append(cmd.Env, "VX_LOG=debug", fmt.Sprintf("VX_TEST_JOURNAL_RUN=%d", n))
	var out, log bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &log // vx run starts no vxd: a pipe is safe
	if err := cmd.Run(); err != nil {
		t.Fatalf("vx.exe run build: %v\n%s\n%s", err, out.String(), log.String())
	}
	_, cache = keysOf(t, out.String())
	for _, line := range strings.Split(log.String(), "\n") {
		var l struct{ Message, Files string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "change journal" {
			how = l.Files
		}
	}
	if how == "" {
		t.Fatalf("the run logged no change journal line\n%s", log.String())
	}
	return cache, how
}

// TestJournalUnderWine: with vxd.exe up, its watch (ReadDirectoryChangesW
// under wine, a watch per directory) lets a no-op run take every file
// from the journal, and an edit a wine cmd.exe makes, a new directory
// with a file written into it at once, and a removed file, are each seen
// by the next run, which runs the edited package again, as is a burst of
// files in one directory; vxd status says it is watching.
func TestJournalUnderWine(t *testing.T) {
	needWine(t)
	ws := t.TempDir()
	cmdWorkspace(t, ws)
	vxd := filepath.Join(windowsBinaries(t), "vxd.exe")
	defer killMarked(wsMark(ws))
	if out, errs, code := wineDaemon(t, ws, vxd, "start"); code != 0 {
		t.Fatalf("vxd start: exit %d\n%s\n%s", code, out, errs)
	}
	defer wineDaemon(t, ws, vxd, "stop")
	if out, _, _ := wineDaemon(t, ws, vxd, "status"); !strings.Contains(out, "watching") {
		t.Errorf("vxd status does not say the journal is watching:\n%s", out)
	}
	runs := 0
	run := func() (map[string]string, string) {
		if runs++; runs > 1 {
			// The listing the last run saved is kept once it is older
			// than the file system's timestamp granularity allows a
			// racing write to be (as in tests/live's journal tests).
			time.Sleep(2100 * time.Millisecond)
		}
		return journalRun(t, ws, runs)
	}
	run() // stats every file, saves the listing
	if cache, how := run(); !strings.HasPrefix(how, "journal:") || cache["a#build"] != "hit/passed" || cache["b#build"] != "hit/passed" {
		t.Fatalf("a no-op run with vxd.exe up: %v, files %q; want two hits, the files taken from the journal", cache, how)
	}
	steps := []struct{ what, cmd string }{
		{"an edit by cmd.exe", `echo a2> packages\a\src\a.txt`},
		{"a new directory with a file", `mkdir packages\a\src\sub && echo x> packages\a\src\sub\x.txt`},
		{"a removed file", `del packages\a\src\a.txt`}, // leaving files no run had
	}
	for _, st := range steps {
		if out, err := wine(t, time.Minute, ws, "cmd", "/d", "/c", st.cmd); err != nil {
			t.Fatalf("wine cmd /c %s: %v\n%s", st.cmd, err, out)
		}
		cache, how := run()
		if !strings.HasPrefix(how, "journal:") || cache["a#build"] != "miss/passed" || cache["b#build"] != "miss/passed" {
			t.Errorf("after %s: %v, files %q; want the journal to have seen it, a and b run again", st.what, cache, how)
		}
	}
	// A burst of files in one directory, more than a watch's buffer holds
	// between two reads: whether the journal saw them all or overflowed
	// (its epoch then ends, and the run stats every file), the next run
	// runs a again.
	burst := `for /L %i in (1,1,1500) do @echo x> packages\a\src\burst%i.txt`
	if out, err := wine(t, 5*time.Minute, ws, "cmd", "/d", "/c", burst); err != nil {
		t.Fatalf("wine cmd /c %s: %v\n%s", burst, err, out)
	}
	cache, how := run()
	if cache["a#build"] != "miss/passed" {
		t.Errorf("after a burst of 1,500 new files in one directory: %v, files %q; want a and b run again", cache, how)
	}
	t.Logf("after the burst, the run's files: %s", how)
}
