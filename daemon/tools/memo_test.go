package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/mcpserver"
)

// memoEnv is the env of a one-project workspace whose build command reads
// "echo hunter2-token".
func memoEnv(t *testing.T) *ops.Env {
	t.Helper()
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":     `{"projects": ["apps/*"], "tasks": {"build": {"command": "echo hunter2-token"}}}`,
		"apps/web/package.json": `{"name": "web"}`,
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	env := ops.NewEnv(root, m, nil, []string{"PATH=" + os.Getenv("PATH")})
	t.Cleanup(env.Close)
	return env
}

// The memo keeps listTasks' answers masked, and an answer kept before the
// masker learnt a value is masked for it on its next hit: no memo hit
// carries a secret the server would have masked.
func TestMemoHitsAreMaskedWithTheCurrentSecrets(t *testing.T) {
	env := memoEnv(t)
	srv := mcpserver.New(&mcpserver.Options{Mask: env.Masker.String, MaskJSON: env.Masker.JSON})
	defer srv.Close()
	srv.SetTools(Catalog(env, Config{}))
	ss := srv.NewSession(nil)
	ctx := context.Background()
	if r := ss.HandleBody(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize",`+
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), nil); !strings.Contains(string(r), `"result"`) {
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

// However many different arguments come, the memo holds at most
// memoEntries answers and memoBytes of them, and what was just kept is a
// hit.
func TestMemoIsBounded(t *testing.T) {
	a := &answerMemo{env: memoEnv(t)}
	big := strings.Repeat("x", 150<<10)
	held := func() (n int) {
		for k, e := range a.m {
			n += len(k) + len(e.b)
		}
		return n
	}
	for i := 0; i < 400; i++ {
		args := json.RawMessage(fmt.Sprintf(`{"filter":"f%d"}`, i))
		if _, ok := a.get(args); ok {
			t.Fatalf("a hit for %s before it was kept", args)
		}
		if _, err := a.put(args, map[string]string{"a": big}); err != nil {
			t.Fatal(err)
		}
		if _, ok := a.get(args); !ok {
			t.Fatalf("no hit for %s just kept", args)
		}
		if len(a.m) > memoEntries || a.bytes > memoBytes || held() != a.bytes {
			t.Fatalf("after %d answers: %d kept, %d bytes counted, %d held", i+1, len(a.m), a.bytes, held())
		}
	}
	for i := 0; i < 2*memoEntries; i++ { // small answers: the entry bound
		if _, err := a.put(json.RawMessage(fmt.Sprintf(`{"project":"p%d"}`, i)), map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.m) > memoEntries || held() != a.bytes {
		t.Fatalf("%d answers kept, %d bytes counted, %d held", len(a.m), a.bytes, held())
	}
}
