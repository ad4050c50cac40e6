package vx

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// requestWorkspace is two projects with a build each.
func requestWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":   `{"projects": ["pkgs/*"], "tasks": {"build": {"command": "echo built"}}}`,
		"pkgs/a/package.json": `{"name": "a"}`,
		"pkgs/b/package.json": `{"name": "b"}`,
	})
	return root
}

func runWithStdin(root, stdin string, argv ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), argv, &cmdline.IO{In: strings.NewReader(stdin), Out: &out, Err: &errb, Dir: root, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	return code, out.String(), errb.String()
}

// TestRunInput: vx run --input - takes its selection from the typed
// request on stdin (how vxd starts a run), answers with the summary in
// JSON, and records the request's command line as the run's.
func TestRunInput(t *testing.T) {
	root := requestWorkspace(t)
	req := `{"tasks": ["build"], "filters": ["a"], "command": ["run", "--filter=a", "--", "build"]}`
	code, out, errs := runWithStdin(root, req, "run", "--input", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sum wire.RunSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("stdout is not a run summary: %v\n%s", err, out)
	}
	if len(sum.Tasks) != 1 || sum.Tasks[0].TaskID != "a#build" || sum.Command != "vx run --filter=a -- build" {
		t.Errorf("summary: command %q, tasks %+v; want a#build alone, recorded as the request's command", sum.Command, sum.Tasks)
	}

	// A task name that looks like a flag is a task name here: unknown.
	code, _, errs = runWithStdin(root, `{"tasks": ["--force"]}`, "run", "--input", "-")
	if code != 2 || !strings.Contains(errs, "--force") {
		t.Errorf("task \"--force\": exit %d, %s; want exit 2 naming it as a task", code, errs)
	}

	refusals := []struct {
		stdin string
		argv  []string
		want  string
	}{
		{req, []string{"build"}, "not the command line"},
		{req, []string{"--filter", "b"}, "--filter"},
		{req, []string{"--format", "text"}, "JSON"},
		{`{"tasks": ["build"], "force": "yes"}`, nil, "not a run request"},
		{`{"tasks": ["build"], "concurrency": 2}`, nil, "concurrency"},
		{`{"tasks": ["build"], "dry": true}`, nil, "dry"},
		{`{"tasks": []}`, nil, "names no task"},
		{``, nil, "not a run request"},
	}
	for _, tc := range refusals {
		argv := append([]string{"run", "--input", "-"}, tc.argv...)
		code, out, errs := runWithStdin(root, tc.stdin, argv...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v with %s: exit %d, stdout %q, stderr %q; want exit 2 naming %s", argv, tc.stdin, code, out, errs, tc.want)
		}
	}
	if code, _, errs := runWithStdin(root, req, "run", "--input", "req.json"); code != 2 || !strings.Contains(errs, "--input -") {
		t.Errorf("--input req.json: exit %d, %s; want a refusal naming --input -", code, errs)
	}
}
