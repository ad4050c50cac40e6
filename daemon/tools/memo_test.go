package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
)

// The memo keeps listTasks' answers masked, and an answer kept before the
// masker learnt a value is masked for it on its next hit: no memo hit
// carries a secret the server would have masked.
func TestMemoHitsAreMaskedWithTheCurrentSecrets(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"vx.workspace.json":     `{"projects": ["apps/*"], "tasks": {"build": {"command": "echo hunter2-token"}}}`,
		"apps/web/package.json": `{"name": "web"}`,
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	env := ops.NewEnv(root, m, nil, []string{"PATH=" + os.Getenv("PATH")})
	defer env.Close()
	srv := mcpserver.New(&mcpserver.Options{Mask: env.Masker.String, MaskJSON: env.Masker.JSON})
	defer srv.Close()
	srv.SetTools(Catalog(env, Config{}))
	ss := srv.NewSession(nil)
	ctx := context.Background()
	if r := ss.HandleBody(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), nil); !strings.Contains(string(r), `"result"`) {
		t.Fatalf("initialize: %s", r)
	}
	call := func() string {
		return string(ss.HandleBody(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"listTasks","arguments":{}}}`), nil))
	}
	if a := call(); !strings.Contains(a, "hunter2-token") {
		t.Fatalf("listTasks does not show the command: %.300s", a)
	}
	if a := call(); !strings.Contains(a, "hunter2-token") { // a memo hit
		t.Fatalf("a memo hit differs: %.300s", a)
	}
	env.Masker.Add("hunter2-token")
	for i := 0; i < 2; i++ {
		a := call()
		if strings.Contains(a, "hunter2-token") || !strings.Contains(a, "echo ***") {
			t.Fatalf("hit %d after the value became secret: %.400s", i+1, a)
		}
	}
}
