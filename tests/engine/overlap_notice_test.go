//go:build !windows

package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// overlapLines are the lines of a run's output that warn of p#build and
// p#typecheck's overlap.
func overlapLines(r result) []string {
	var lines []string
	for _, l := range strings.Split(r.Stdout+r.Stderr, "\n") {
		if strings.Contains(l, "p#build and p#typecheck") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestOverlapWarnedOnceInOneLine: tasks whose outputs overlap (build and
// typecheck of create-t3-turbo's packages) are warned about in one short
// line pointing at vx show --overlaps, once: no later run of the same
// definitions repeats it (cached or not), and a changed definition is said
// again.
func TestOverlapWarnedOnceInOneLine(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "overlap")
	cold := vxOK(t, ws, nil, "run", "build", "typecheck")
	lines := overlapLines(cold)
	if len(lines) != 1 || len(lines[0]) > 120 || !strings.Contains(lines[0], "vx show --overlaps") {
		t.Fatalf("want one line of at most 120 characters naming vx show --overlaps, got %q\n%s", lines, cold)
	}
	warm := vxOK(t, ws, nil, "run", "build", "typecheck")
	if !strings.Contains(warm.Stdout, "2 cached") {
		t.Fatalf("the second run is not fully cached\n%s", warm)
	}
	if l := overlapLines(warm); len(l) != 0 {
		t.Errorf("a fully cached run repeats the warning: %q", l)
	}
	if l := overlapLines(vxOK(t, ws, nil, "run", "build", "typecheck", "--force")); len(l) != 0 {
		t.Errorf("a run that executes both tasks again repeats the warning: %q", l)
	}
	if _, err := os.Stat(filepath.Join(ws, ".vx", "notices.json")); err != nil {
		t.Errorf("what was said is not remembered under .vx/: %v", err)
	}

	show := vxOK(t, ws, nil, "show", "--overlaps")
	for _, w := range []string{"p#build and p#typecheck may write the same files", "p#typecheck declares output .cache/info.json", "dependsOn"} {
		if !strings.Contains(show.Stdout, w) {
			t.Errorf("vx show --overlaps lacks %q\n%s", w, show)
		}
	}
	var js struct {
		Projects       []any `json:"projects"`
		OutputOverlaps []struct {
			Tasks   [2]string `json:"tasks"`
			Outputs [2]string `json:"outputs"`
		} `json:"outputOverlaps"`
	}
	answerJSON(t, ws, &js, "show", "--overlaps")
	if len(js.Projects) != 0 || len(js.OutputOverlaps) != 1 || js.OutputOverlaps[0].Tasks != [2]string{"p#build", "p#typecheck"} {
		t.Errorf("vx show --overlaps --format json = %+v", js)
	}

	cfg := filepath.Join(ws, "vx.workspace.json")
	text := strings.Replace(readFile(t, cfg), `"typecheck": { "outputs": [".cache/info.json"] }`, `"typecheck": { "outputs": [".cache/info.json", "types/**"] }`, 1)
	writeFiles(t, ws, map[string]string{"vx.workspace.json": text})
	if l := overlapLines(vxOK(t, ws, nil, "run", "build", "typecheck")); len(l) != 1 {
		t.Errorf("a changed definition: want the warning said again, got %q", l)
	}
}
