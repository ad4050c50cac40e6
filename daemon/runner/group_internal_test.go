package runner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
)

// TestGroupByProject: the listed files go to their deepest project, in
// listing order, relative to it, with their stat cache records; files of
// no project go nowhere. The grouping makes a fixed number of arrays
// whatever the files per project (a slice grown per project was up to
// twice its files, 5 MB live at 10,000 packages), and one project's list
// cannot grow into the next's.
func TestGroupByProject(t *testing.T) {
	const projects, perProject = 40, 30
	root := t.TempDir()
	files := map[string]string{
		"vx.workspace.json":       `{"projects": ["p/*", "p/a/nested"]}`,
		"p/a/package.json":        `{"name": "a"}`,
		"p/a/nested/package.json": `{"name": "nested"}`,
		"p/a-b/package.json":      `{"name": "a-b"}`,
		"README.md":               "",
	}
	for i := range projects {
		files[fmt.Sprintf("p/q%02d/package.json", i)] = fmt.Sprintf(`{"name": "q%02d"}`, i)
	}
	testtree.Write(t, root, files)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"README.md", "p/a-b/x.js", "p/a/nested/n.js", "p/a/nested/package.json", "p/a/package.json", "p/a/src/z.js"}
	for i := range projects {
		for j := range perProject {
			all = append(all, fmt.Sprintf("p/q%02d/src/f%02d.js", i, j))
		}
	}
	slices.Sort(all)
	recs := make([]int32, len(all))
	for i := range recs {
		recs[i] = int32(100 + i)
	}
	byDir, recsByDir := groupByProject(m, all, recs)
	if got, want := byDir["p/a"], []string{"package.json", "src/z.js"}; !slices.Equal(got, want) {
		t.Errorf("p/a: %q, want %q", got, want)
	}
	if got, want := byDir["p/a/nested"], []string{"n.js", "package.json"}; !slices.Equal(got, want) {
		t.Errorf("p/a/nested: %q, want %q", got, want)
	}
	if got := byDir["p/q07"]; len(got) != perProject || got[3] != "src/f03.js" {
		t.Errorf("p/q07: %q", got)
	}
	i := slices.Index(all, "p/q07/src/f03.js")
	if got := recsByDir["p/q07"][3]; got != recs[i] {
		t.Errorf("p/q07's 4th record %d, want %d", got, recs[i])
	}
	if _, ok := byDir[""]; ok {
		t.Errorf("README.md, of no project, was grouped")
	}
	// Appending to one list leaves its neighbour alone.
	a := byDir["p/a"]
	_ = append(a, "grown.js")
	if got := byDir["p/a/nested"][0]; got != "n.js" {
		t.Errorf("an append to p/a's list overwrote p/a/nested's first file: %q", got)
	}
	allocs := testing.AllocsPerRun(5, func() { groupByProject(m, all, recs) })
	if allocs >= projects {
		t.Errorf("grouping %d files of %d projects made %.0f allocations, want fewer than one per project", len(all), projects, allocs)
	}
	_, noRecs := groupByProject(m, all, nil)
	if len(noRecs) != 0 {
		t.Errorf("records grouped without any: %v", noRecs)
	}
}
