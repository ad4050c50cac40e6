package workspace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestConcurrentLoadsLeaveNoStaleStore: loads at once (as two vx
// processes are) write the plugin's store over each other while its
// matched file is rewritten to the same size with its mtime put back;
// whichever store is left, the next load infers from the file as it is.
func TestConcurrentLoadsLeaveNoStaleStore(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	ref := filepath.Join(root, "packages", "a", "vx-ref.json")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(ref, old, old); err != nil {
		t.Fatal(err)
	}
	loadListed(t, root)
	var last string
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				loadListed(t, root)
			}()
		}
		last = fmt.Sprintf("echo ref %d", round)
		f, err := os.OpenFile(ref, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte(`{"command":"`+last+`","outputs":["out/**"]}`), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(ref, old, old); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		mustLoad(t, root)
		if def, _ := loadListed(t, root).Resolve("a", "ref"); def.Command != last {
			t.Fatalf("round %d: a#ref runs %q, want %q", round, def.Command, last)
		}
	}
}
