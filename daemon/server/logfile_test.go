package server

import (
	"github.com/vzn/vx/protocol/layout"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogRotates: the daemon's log never grows past its cap: at the cap
// it moves to vxd.log.1 (replacing an older one) and starts over, so the
// two together stay under twice the cap.
func TestLogRotates(t *testing.T) {
	root := t.TempDir()
	w, err := OpenLog(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.(*rotatingLog).max = 10 << 10
	line := `{"level":"warn","message":"` + strings.Repeat("x", 200) + `"}` + "\n"
	for range 1000 { // 200 KiB in all
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"vxd.log", "vxd.log.1"} {
		st, err := os.Stat(filepath.Join(layout.Daemon(root), name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Size() > 10<<10 {
			t.Errorf("%s is %d bytes, past the 10 KiB cap", name, st.Size())
		}
		b, _ := os.ReadFile(filepath.Join(layout.Daemon(root), name))
		if !strings.HasSuffix(string(b), "}\n") || strings.Count(string(b), "\n")*len(line) != len(b) {
			t.Errorf("%s holds a torn line", name)
		}
	}
	// Reopening appends to what is there.
	w.Close()
	w2, err := OpenLog(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if w2.(*rotatingLog).size == 0 {
		t.Error("a reopened log forgot its size")
	}
}
