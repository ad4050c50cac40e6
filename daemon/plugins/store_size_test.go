package plugins

import (
	"fmt"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/plugin"
)

// TestStoreOfMostFilesReadsBack: an answer given for as many matched
// files as a tasks request may carry (plugin.MaxFiles), with paths of a
// deep monorepo, is stored and read back; a store past its read bound
// would be no answer, and every load would ask the plugin again.
func TestStoreOfMostFilesReadsBack(t *testing.T) {
	root := t.TempDir()
	d := &plugin.Describe{Protocol: 1, Name: "reference", Version: "1.0.0", Stages: []string{"tasks"}, Globs: []string{"**/vx-ref.json"}}
	files := make([]fileRec, plugin.MaxFiles)
	for i := range files {
		files[i] = fileRec{
			Path:  fmt.Sprintf("services/platform/team-%03d/packages/some-longer-package-name-%06d/config/vx-ref.json", i%1000, i),
			Hash:  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			Stamp: stamp{1796567431485299161, 1796567431485299161, 4096, 10208090, 33188},
			Sum:   "b9e6ade9d4f08bfe00e85062e1a4a48a",
		}
	}
	s := &stored{Spec: "./p.mjs", Identity: "id", DescribeKey: "dk", Describe: d, TasksKey: "tk", Files: files, At: time.Unix(100, 0).UTC()}
	if err := s.save(root, nil); err != nil {
		t.Fatal(err)
	}
	got := loadStored(root, "./p.mjs")
	if got != nil && len(got.Files) == len(files) {
		got.Files[len(files)-1].decodeStamp()
	}
	if got == nil || len(got.Files) != len(files) || got.Files[len(files)-1] != files[len(files)-1] {
		t.Fatalf("a store of %d files did not read back", len(files))
	}
}
