package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// stampsAt loads the stamps kept in dir.
func stampsAt(dir string) *outputStamps {
	return loadStampsFrom(filepath.Join(dir, "outputs"), filepath.Join(dir, "outputs.seen"), filepath.Join(dir, "outputs.json"))
}

// writeOutputs writes a task's output files under dir/ws and stamps them.
func writeOutputs(t *testing.T, s *outputStamps, ws, task string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(task+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.record(task, "key-"+task, ws, files, []byte("log of "+task+"\n"))
}

// The stamps file keeps every task's stamps and log across a save and a
// load, a forgotten task's gone, and one task decoded without the rest.
func TestStampsFileRoundTrip(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	s := stampsAt(dir)
	writeOutputs(t, s, ws, "a#build", "a/dist/x.js", "a/dist/y.js")
	writeOutputs(t, s, ws, "b#build", "b/dist/x.js")
	writeOutputs(t, s, ws, "c#build")
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	s = stampsAt(dir)
	s.forget("b#build")
	writeOutputs(t, s, ws, "d#build", "d/out")
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	s = stampsAt(dir)
	for task, n := range map[string]int{"a#build": 2, "c#build": 0, "d#build": 1} {
		files, linked, log, ok := s.current(task, "key-"+task, ws)
		if !ok || len(files) != n || len(linked) != 0 || string(log) != "log of "+task+"\n" {
			t.Errorf("%s: %v %v %q %v, want %d files and its log", task, files, linked, log, ok, n)
		}
	}
	if _, _, _, ok := s.current("b#build", "key-b#build", ws); ok {
		t.Error("a forgotten task's stamps came back")
	}
	if _, _, _, ok := s.current("a#build", "another key", ws); ok {
		t.Error("stamps taken for another key")
	}
}

// A stamps file cut short, with a byte changed, or of another format is
// no stamps at all (every task then restores), and the next save writes
// a whole one again.
func TestStampsFileRefusesTornOrCorrupt(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	s := stampsAt(dir)
	for _, task := range []string{"a#build", "b#build"} {
		writeOutputs(t, s, ws, task, task+"/out")
	}
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "outputs")
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), whole...)
	flipped[len(flipped)/2] ^= 0x20
	for what, b := range map[string][]byte{
		"cut short":    whole[:len(whole)-7],
		"a byte off":   flipped,
		"empty":        nil,
		"another kind": []byte(`{"a#build":{"key":"key-a#build","files":[]}}`),
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s := stampsAt(dir)
		if _, _, _, ok := s.current("a#build", "key-a#build", ws); ok {
			t.Errorf("%s: stamps taken from it", what)
		}
		writeOutputs(t, s, ws, "a#build", "a#build/out")
		if err := s.save(); err != nil {
			t.Fatal(err)
		}
		if _, _, _, ok := stampsAt(dir).current("a#build", "key-a#build", ws); !ok {
			t.Errorf("%s: the save after it did not read back", what)
		}
	}
}

// The JSON stamps of vx before .vx/outputs are read when there is no
// stamps file yet (an upgrade restores nothing), never once there is.
func TestStampsReadTheJSONOfBefore(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	s := stampsAt(dir)
	writeOutputs(t, s, ws, "a#build", "a/out")
	st, ok := stampFile(ws, "a/out")
	if !ok {
		t.Fatal("no stamp")
	}
	legacy := `{"a#build":{"key":"key-a#build","files":[{"p":"a/out","s":` + itoa(st.Size) + `,"t":` + itoa(st.Mtime) +
		`,"i":` + itoa(int64(st.Ino)) + `,"m":` + itoa(int64(st.Mode)) + `,"c":` + itoa(st.Ctime) + `}],"log":"old\n"}}`
	if err := os.WriteFile(filepath.Join(dir, "outputs.json"), []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	s = stampsAt(dir)
	if _, _, log, ok := s.current("a#build", "key-a#build", ws); !ok || string(log) != "old\n" {
		t.Fatalf("the JSON stamps were not taken: %q %v", log, ok)
	}
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	// Now .vx/outputs is written: the JSON, however it reads, is not.
	if err := os.WriteFile(filepath.Join(dir, "outputs.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := stampsAt(dir).current("a#build", "key-a#build", ws); !ok {
		t.Fatal("the saved stamps were not read")
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// A stamps file or mark over its bound is refused before it is read.
func TestStampsRefuseAnOversizedFile(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	s := stampsAt(dir)
	writeOutputs(t, s, ws, "a#build", "a/out")
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	// Sparse: nothing is written, and a read of it would take seconds.
	if err := os.Truncate(filepath.Join(dir, "outputs"), maxStampsSize+1); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := stampsAt(dir).current("a#build", "key-a#build", ws); ok {
		t.Error("stamps taken from an oversized file")
	}
	if _, err := readAtMost(filepath.Join(dir, "outputs"), maxStampsSize); err == nil {
		t.Error("an oversized file was read")
	}
}
