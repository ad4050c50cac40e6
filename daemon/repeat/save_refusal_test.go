package repeat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A memo larger than Load reads is not written: a run that would leave
// one writes nothing that no later run can use.
func TestSaveRefusesAMemoLoadWouldRefuse(t *testing.T) {
	defer func(n int) { maxFile = n }(maxFile)
	maxFile = 4 << 10
	m := sampleMemo()
	m.Tasks[0].Log = strings.Repeat("x", maxFile)
	path := filepath.Join(t.TempDir(), "repeat")
	if err := Save(path, m); err == nil {
		t.Fatal("a memo larger than maxFile was saved")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a refused memo left a file: %v", err)
	}
	m.Tasks[0].Log = "small"
	if err := Save(path, m); err != nil || loadMemo(path) == nil {
		t.Fatalf("a small memo: save %v, load %v", err, loadMemo(path))
	}
}
