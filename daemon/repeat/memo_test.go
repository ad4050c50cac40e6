package repeat

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/version"
)

func sampleMemo() *Memo {
	return &Memo{Version: version.Version, Root: "/w", Epoch: "e1", Seq: 42, Salt: "s", Input: "i", RunID: "r1",
		Command: "vx run build", Args: []string{"run", "build"}, CI: true,
		Watched: []hashing.Stamp{{Path: "/w/.git/index", Mtime: 1, Ctime: 2, Size: 3, Ino: 4, Mode: 0o100644, Exists: true}, {Path: "/etc/gitconfig"}},
		Tasks: []Task{{ID: "a#build", Project: "a", Task: "build", Key: "k", CacheSource: "local", Outputs: 2, DependsOn: []string{"b#build"}, Log: "hi\nthere", Printed: true},
			{ID: "b#build", Project: "b", Task: "build", Key: "k2", CacheSource: "local"}}}
}

func TestMemoRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repeat")
	want := sampleMemo()
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got := loadMemo(path)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded %+v, want %+v", got, want)
	}
}

// Every truncation and every flipped byte of a memo either decodes to a
// memo or is refused; none panics.
func TestMemoDamageIsRefused(t *testing.T) {
	raw := sampleMemo().encode()
	for i := range raw {
		if m, err := decode(raw[:i]); err == nil {
			t.Fatalf("a memo cut at %d bytes decoded: %+v", i, m)
		}
		b := append([]byte(nil), raw...)
		b[i] ^= 0xff
		_, _ = decode(b)
	}
	path := filepath.Join(t.TempDir(), "repeat")
	if err := os.WriteFile(path, []byte(magic+"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	if loadMemo(path) != nil {
		t.Fatal("a malformed memo loaded")
	}
}
