package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/mcpserver"
)

// catalogEnv is a small workspace whose catalog holds every tool: agents
// may run tasks, and vxd keeps plans.
func catalogEnv(t testing.TB) *ops.Env {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"vx.workspace.json":        `{"projects": ["pkgs/*"], "tasks": {"build": {"command": "true"}}, "mcp": {"run": true}}`,
		"pkgs/web/vx.project.json": `{}`,
		"pkgs/web/package.json":    `{"name": "web"}`,
		"pkgs/web/src/index.txt":   "web\n",
	}
	testtree.Write(t, root, files)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	e := ops.NewEnv(root, m, nil, []string{})
	t.Cleanup(e.Close)
	return e
}

func catalogTools(t *testing.T) map[string]mcpserver.Tool {
	e := catalogEnv(t)
	out := map[string]mcpserver.Tool{}
	for _, tl := range Catalog(e, Config{VX: "vx", Plans: plans.NewStore()}) {
		out[tl.Def.Name] = tl
	}
	return out
}

// TestCatalogIsTheOperations: every operation is a tool, with an object
// inputSchema that refuses unknown arguments, an outputSchema generated
// from its output type, and annotations from its declaration; except a
// CLI-only one (a person's act, vx approve), which is never a tool.
func TestCatalogIsTheOperations(t *testing.T) {
	tools := catalogTools(t)
	cliOnly := 0
	for _, op := range ops.Operations() {
		t.Run(op.Name, func(t *testing.T) {
			tl, ok := tools[op.Name]
			if op.CLIOnly {
				cliOnly++
				if ok {
					t.Fatalf("operation %s is CLI-only (a person's act), yet the catalog serves it as a tool", op.Name)
				}
				return
			}
			if !ok {
				t.Fatalf("operation %s is not in the catalog", op.Name)
			}
			var in struct {
				Type       string         `json:"type"`
				Properties map[string]any `json:"properties"`
				Additional *bool          `json:"additionalProperties"`
			}
			if err := json.Unmarshal(tl.Def.InputSchema, &in); err != nil || in.Type != "object" || in.Additional == nil || *in.Additional {
				t.Errorf("inputSchema %s: want an object with additionalProperties false (%v)", tl.Def.InputSchema, err)
			}
			if string(tl.Def.OutputSchema) == `{"type":"object"}` {
				t.Errorf("outputSchema is the fallback: %s's output type has no schema", op.Output)
			}
			a := tl.Def.Annotations
			if a == nil || *a.ReadOnlyHint != op.ReadOnly || a.Title != op.Title {
				t.Errorf("annotations %+v do not say the declaration's (readOnly %v)", a, op.ReadOnly)
			}
			if !op.ReadOnly && (a.DestructiveHint == nil || *a.DestructiveHint != op.Destructive || a.IdempotentHint == nil || *a.IdempotentHint != op.Idempotent) {
				t.Errorf("annotations %+v do not say destructive %v, idempotent %v", a, op.Destructive, op.Idempotent)
			}
			// Unknown arguments are refused before anything is answered.
			call := &mcpserver.Call{Name: op.Name, Arguments: json.RawMessage(`{"zzzNoSuchArgument": 1}`)}
			if _, err := tl.Handler(context.Background(), call); err == nil || !strings.Contains(err.Error(), `"zzzNoSuchArgument"`) {
				t.Errorf("an unknown argument: %v; want a refusal naming it", err)
			}
		})
	}
	if cliOnly == 0 {
		t.Error("no CLI-only operation: approvePlan (vx approve) should be one")
	}
	if _, ok := tools[ops.OpApprovePlan]; ok {
		t.Errorf("%s is a tool: an MCP client could approve its own plans", ops.OpApprovePlan)
	}
}

// TestEveryArgumentDocumented: every argument of every tool, as its
// generated inputSchema names it, is documented in mcp.md.
func TestEveryArgumentDocumented(t *testing.T) {
	for name, tl := range catalogTools(t) {
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tl.Def.InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		for arg := range in.Properties {
			r, err := docsearch.Search(arg, docsearch.MaxLimit)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, s := range r.Sections {
				found = found || s.File == "mcp.md"
			}
			if !found {
				t.Errorf("argument %q of %s is not documented in mcp.md", arg, name)
			}
		}
	}
}
