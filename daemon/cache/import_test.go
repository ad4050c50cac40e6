package cache

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
)

// TestImport stores an entry's bytes received from elsewhere: whole and
// right, it becomes a hit; torn, altered, foreign, oversized or refused,
// nothing lands and nothing is restored.
func TestImport(t *testing.T) {
	src := openStore(t)
	root := t.TempDir()
	files := writeTree(t, root, map[string]node{"dist/a.js": {content: "alpha", mode: 0o644}, "dist/b/c.txt": {content: randomString(5000), mode: 0o600}})
	e, err := src.Put(context.Background(), meta(key1), root, files, []byte("the log\n"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(e.Path)
	if err != nil {
		t.Fatal(err)
	}
	const key2 = "fedcba9876543210fedcba9876543210"
	altered := bytes.Clone(good)
	altered[len(altered)-20] ^= 1
	refuse := errors.New("refused")
	bad := []struct {
		name   string
		key    string
		body   []byte
		limit  int64
		accept func() error
		want   error
	}{
		{"truncated", key1, good[:len(good)-9], 1 << 20, nil, ErrCorrupt},
		{"altered", key1, altered, 1 << 20, nil, ErrCorrupt},
		{"another key's entry", key2, good, 1 << 20, nil, ErrCorrupt},
		{"over the limit", key1, good, int64(len(good) - 1), nil, ErrCorrupt},
		{"refused by accept", key1, good, 1 << 20, func() error { return refuse }, refuse},
		{"empty", key1, nil, 1 << 20, nil, ErrCorrupt},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			dst := openStore(t)
			_, err := dst.Import(context.Background(), c.key, bytes.NewReader(c.body), c.limit, c.accept)
			if !errors.Is(err, c.want) {
				t.Fatalf("Import: %v, want %v", err, c.want)
			}
			if _, err := dst.Get(c.key); !errors.Is(err, ErrMiss) {
				t.Fatalf("after a refused import Get says %v, want a miss", err)
			}
			assertNoTemps(t, dst.Dir())
		})
	}
	dst := openStore(t)
	accepted := false
	hit, err := dst.Import(context.Background(), key1, bytes.NewReader(good), 1<<20, func() error { accepted = true; return nil })
	if err != nil || !accepted {
		t.Fatalf("Import of a good entry: %v (accept called: %v)", err, accepted)
	}
	out := t.TempDir()
	if _, err := hit.Restore(out); err != nil {
		t.Fatal(err)
	}
	diffTree(t, readTree(t, root), readTree(t, out))
	if again, err := dst.Get(key1); err != nil || again.TaskID != "web#build" {
		t.Fatalf("Get after Import: %v", err)
	}
}
