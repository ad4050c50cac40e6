package ops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
)

// TestLockThenCheck: Lock records the definitions, CheckLock finds them
// current, and after a command changes it names the drift (exit code 1).
func TestLockThenCheck(t *testing.T) {
	ctx := context.Background()
	e := testEnv(t)
	out, err := Lock(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if out.File != e.Root+"/vx.lock" || out.Tasks != 2 || !out.Changed {
		t.Errorf("Lock = %+v; want vx.lock written with a#build and b#build", out)
	}
	if again, err := Lock(ctx, e); err != nil || again.Changed {
		t.Errorf("second Lock = %+v, %v; want unchanged", again, err)
	}
	res, err := CheckLock(ctx, e)
	if err != nil || !res.UpToDate || res.ExitCode != 0 || len(res.Audited) != 2 {
		t.Fatalf("CheckLock = %+v, %v; want up to date, both audited", res, err)
	}
	p := filepath.Join(e.Root, "pkgs/a/package.json")
	if err := os.WriteFile(p, []byte(`{"name": "a", "scripts": {"build": "echo changed"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Load(e.Root)
	if err != nil {
		t.Fatal(err)
	}
	e.SetModel(m, nil)
	res, err = CheckLock(ctx, e)
	if err != nil || res.UpToDate || res.ExitCode != 1 || len(res.Problems) != 1 || res.Problems[0].TaskID != "a#build" || res.Problems[0].Current != "echo changed" {
		t.Errorf("CheckLock after a change = %+v, %v; want a#build's command as the one drift", res, err)
	}
}

// TestPlanInitThenInit: PlanInit writes nothing, Init writes what it
// planned, a second Init keeps the file unless the mode is force, and an
// unknown mode is refused naming the argument.
func TestPlanInitThenInit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "mono", "workspaces": ["pkgs/*"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pkgs/a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkgs/a/package.json"), []byte(`{"name": "a", "scripts": {"build": "true"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, workspace.ConfigFile)
	plan, err := PlanInit(ctx, InitInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Fatalf("PlanInit wrote %s (%v)", cfg, err)
	}
	var proposed string
	for _, f := range plan.Files {
		if f.Path == workspace.ConfigFile && f.Action == migrate.ActionNew {
			proposed = f.Text
		}
	}
	if proposed == "" {
		t.Fatalf("PlanInit proposes no new %s: %+v", workspace.ConfigFile, plan.Files)
	}
	out, err := Init(ctx, InitInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(cfg); err != nil || string(b) != proposed || len(out.Written) == 0 {
		t.Errorf("Init wrote %v; %s holds %q (%v); want the planned text", out.Written, cfg, b, err)
	}
	kept, err := PlanInit(ctx, InitInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	forced, err := PlanInit(ctx, InitInput{Dir: dir, Mode: InitForce})
	if err != nil {
		t.Fatal(err)
	}
	action := func(p *migrate.Plan) string {
		for _, f := range p.Files {
			if f.Path == workspace.ConfigFile {
				return f.Action
			}
		}
		return ""
	}
	if action(kept) != migrate.ActionKept || action(forced) != migrate.ActionReplaced {
		t.Errorf("existing config: keep plans %q, force plans %q; want kept and replaced", action(kept), action(forced))
	}
	_, err = PlanInit(ctx, InitInput{Dir: dir, Mode: "overwrite"})
	var ae *opkit.Refusal
	if !errors.As(err, &ae) || ae.Arg != "mode" || !strings.Contains(ae.Msg, "overwrite") {
		t.Errorf("mode overwrite: %v; want a refusal of the argument mode", err)
	}
}

// TestSearchDocs: the default limit applies without one, an out-of-range
// limit is clamped with a note, and a query without words is refused as
// the argument query.
func TestSearchDocs(t *testing.T) {
	ctx := context.Background()
	res, err := SearchDocs(ctx, SearchDocsInput{Query: "cache key"})
	if err != nil || res.Limit != 5 || len(res.Sections) != 5 {
		t.Fatalf("SearchDocs(cache key) = %+v, %v; want 5 sections (the default limit)", res, err)
	}
	big := 500
	if res, err := SearchDocs(ctx, SearchDocsInput{Query: "cache key", Limit: opkit.LimitOf(big)}); err != nil || res.Limit != 50 || !strings.Contains(res.Note, "500") {
		t.Errorf("limit 500: %+v, %v; want clamped to 50 with a note", res, err)
	}
	_, err = SearchDocs(ctx, SearchDocsInput{Query: "  ?? "})
	var ae *opkit.Refusal
	if !errors.As(err, &ae) || ae.Arg != "query" {
		t.Errorf("query without words: %v; want a refusal of the argument query", err)
	}
}
