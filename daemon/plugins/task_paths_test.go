package plugins

import (
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/plugin"
)

// TestTaskPathsOutsideAreRefused: an inferred task's inputs and outputs
// are held to what a configured task's may name: inside the workspace,
// outputs under the task's directory (neither rooted at "/" nor climbing
// out through "..", which would match nothing and lose the files on a hit).
func TestTaskPathsOutsideAreRefused(t *testing.T) {
	files := map[string]bool{"packages/a/x.json": true}
	roots := map[string]string{"a": "packages/a"}
	task := func(inputs, outputs []string) []plugin.Task {
		return []plugin.Task{{Project: "a", Name: "t", File: "packages/a/x.json", Inputs: &inputs, Outputs: &outputs}}
	}
	for _, ok := range []struct{ inputs, outputs []string }{
		{[]string{"src/**", "/tsconfig.json", "^dist/**", "!test/**", "../b/**", "npm:left-pad", "{src,lib}/**"}, []string{"dist/**", "!dist/cache/**", "dist/../out/**"}},
	} {
		if _, err := checkTasks(task(ok.inputs, ok.outputs), files, roots); err != nil {
			t.Errorf("%v %v refused: %v", ok.inputs, ok.outputs, err)
		}
	}
	for _, bad := range []struct {
		inputs, outputs []string
		want            string
	}{
		{[]string{"../../../etc/**"}, nil, "outside the workspace"},
		{[]string{"{../../../etc/passwd,src/**}"}, nil, "outside the workspace"},
		{[]string{"{a,b,c,d}/../../../../../etc/**"}, nil, "outside the workspace"},
		{nil, []string{"/etc/**"}, "outputs \"/etc/**\""},
		{nil, []string{"!/dist/**"}, "outputs \"!/dist/**\""},
		{nil, []string{"../b/dist/**"}, "outputs \"../b/dist/**\" leaves the task's directory"},
		{nil, []string{"!dist/../../b/**"}, "outputs \"!dist/../../b/**\" leaves the task's directory"},
		{[]string{`C:\secrets`}, nil, "outside the workspace"},
	} {
		_, err := checkTasks(task(bad.inputs, bad.outputs), files, roots)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v %v: %v, want an error with %q", bad.inputs, bad.outputs, err, bad.want)
		}
	}
}
