package vx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestRefusalNamesTheJSONField: a run request (vx run --input -) or
// a plan file (vx run --plan FILE) holding a value of the wrong type is
// refused naming the field as the document spells it (tasks,
// request.force), never a Go type the document has no key for (the
// Selection wire.RunRequest embeds).
func TestRequestRefusalNamesTheJSONField(t *testing.T) {
	root := requestWorkspace(t)
	for stdin, want := range map[string]string{
		`{"tasks": "build"}`:                 "RunRequest.tasks of type []string",
		`{"tasks": ["build"], "force": "x"}`: "RunRequest.force of type bool",
	} {
		code, _, errs := runWithStdin(root, stdin, "run", "--input", "-")
		if code != 2 || !strings.Contains(errs, want) || strings.Contains(errs, "Selection") {
			t.Errorf("--input - with %s: exit %d, %q; want exit 2 naming %s", stdin, code, errs, want)
		}
	}
	plan := filepath.Join(root, "plan.json")
	doc := `{"request": {"tasks": ["build"], "force": "x"}, "prerequisites": {}, "madeAt": "2026-01-01T00:00:00Z", "expiresAt": "2026-01-01T00:00:00Z"}`
	if err := os.WriteFile(plan, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runWithStdin(root, "", "run", "--plan", plan)
	if code != 2 || !strings.Contains(errs, "request.force of type bool") || strings.Contains(errs, "Selection") {
		t.Errorf("--plan with a string force: exit %d, %q; want exit 2 naming request.force", code, errs)
	}
}
