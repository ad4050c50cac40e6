//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// escapedSecrets are the values testdata/secrets declares secret, as they
// decode, and as the file spells them (with JSON escapes).
var escapedSecrets = []struct{ value, spelt string }{
	{"inlinesecret123", "inlinesecret123"},
	{"-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END KEY-----", `-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END KEY-----`},
	{`pa"ss/wo\rd`, `pa\"ss/wo\\rd`},
	{"topsecretvalue", `t\u006fpsecretvalue`},
}

// findLeaks lists where a secret shows in an answer: in its bytes, in any
// spelling (as written in the file, or as a JSON encoder escapes it), or
// in any string the answer holds once decoded, JSON texts inside strings
// included.
func findLeaks(b []byte) []string {
	var out []string
	spellings := map[string]bool{}
	for _, s := range escapedSecrets {
		enc, _ := json.Marshal(s.value)
		spellings[s.value], spellings[s.spelt], spellings[string(enc[1:len(enc)-1])] = true, true, true
		// Escaped once more: a JSON text inside a JSON string.
		enc2, _ := json.Marshal(string(enc[1 : len(enc)-1]))
		spellings[string(enc2[1:len(enc2)-1])] = true
	}
	for sp := range spellings {
		if strings.Contains(string(b), sp) {
			out = append(out, "bytes hold "+sp)
		}
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch x := v.(type) {
		case string:
			for sp := range spellings {
				if strings.Contains(x, sp) {
					out = append(out, "a decoded string holds "+sp)
				}
			}
			var inner any
			if depth < 4 && json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner, depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, depth)
			}
		case map[string]any:
			for _, e := range x {
				walk(e, depth)
			}
		}
	}
	var doc any
	if json.Unmarshal(b, &doc) == nil {
		walk(doc, 0)
	}
	return out
}

func checkNoLeak(t *testing.T, what string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if leaks := findLeaks(b); len(leaks) > 0 {
		t.Errorf("%s leaks a secret: %s\n%s", what, strings.Join(leaks, "; "), b)
	}
}

// TestEscapedSecretsNeverLeave: secrets written with JSON escapes, and a
// secret inside a command, are masked in every answer that shows the
// configuration or a definition diff: vx://workspace/config, planInit
// (mode keep), whyDidThisRerun and the explain-rerun prompt.
func TestEscapedSecretsNeverLeave(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "secrets")
			vxRun(t, root, nil, 0, "api")
			cfg := filepath.Join(root, "vx.workspace.json")
			b, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			harness.WriteFile(t, cfg, strings.Replace(string(b), "inlinesecret123 v1", "inlinesecret123 v2", 1))
			s := vxRun(t, root, nil, 0, "api")

			cs := tr.connect(t, root, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "vx://workspace/config"})
			if err != nil {
				t.Fatalf("resources/read vx://workspace/config: %v", err)
			}
			checkNoLeak(t, "vx://workspace/config", res)
			if len(res.Contents) == 0 || !strings.Contains(res.Contents[0].Text, `"PW": { "secret": true, "value": "***" }`) {
				t.Errorf("vx://workspace/config does not show the file with the escaped value masked:\n%v", res.Contents)
			}

			plan := callOK(t, cs, "planInit", map[string]any{"mode": "keep"})
			checkNoLeak(t, "planInit", plan.res)
			if !strings.Contains(plan.text, "kept") {
				t.Errorf("planInit does not keep the existing config:\n%s", plan.text)
			}

			why := callOK(t, cs, "whyDidThisRerun", map[string]any{"taskId": "app#api", "runId": s.RunID})
			checkNoLeak(t, "whyDidThisRerun", why.res)
			if !strings.Contains(why.text, "*** v2") {
				t.Errorf("whyDidThisRerun does not show the masked definition change:\n%s", why.text)
			}
			p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "explain-rerun", Arguments: map[string]string{"taskId": "app#api", "runId": s.RunID}})
			if err != nil {
				t.Fatalf("prompts/get explain-rerun: %v", err)
			}
			checkNoLeak(t, "explain-rerun", p)
		})
	}
}

// TestBrokenConfigMasksItsSecrets: a daemon started while the
// configuration fails to load still masks every secret the file declares,
// and the config error does not quote the mistyped value.
func TestBrokenConfigMasksItsSecrets(t *testing.T) {
	const value = "hunter2literal"
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "brokensecret")
			cs := tr.connect(t, root, nil)
			check := func(what string, v any) {
				t.Helper()
				b, _ := json.Marshal(v)
				if strings.Contains(string(b), value) {
					t.Errorf("%s quotes the secret value:\n%s", what, b)
				}
			}
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"listTasks", map[string]any{}},
				{"getConfig", map[string]any{"target": "app#leak"}},
				{"planTasks", map[string]any{"tasks": []string{"leak"}}},
				{"runTasks", map[string]any{"tasks": []string{"leak"}}},
				{"getWorkspaceInfo", map[string]any{}},
			} {
				if _, ok := toolNames(t, cs)[c.tool]; !ok && c.tool == "runTasks" {
					continue // hidden while no model has loaded
				}
				a := call(t, cs, c.tool, c.args)
				check(c.tool, a.res)
				if c.tool != "getWorkspaceInfo" && !strings.Contains(a.text, "tasks.leak.timeout") {
					t.Errorf("%s does not say which field is wrong:\n%s", c.tool, a.text)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "vx://workspace/config"})
			check("resources/read vx://workspace/config", res)
			if err != nil {
				check("resources/read vx://workspace/config's error", err.Error())
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "vx://tasks/" + url.PathEscape("app#leak") + "/log"}); err != nil {
				check("resources/read the task log's error", err.Error())
			}
			if st, r := vxdStatus(t, root); st == nil || st.ConfigError == "" {
				t.Errorf("vxd status does not report the config error\n%s", r)
			} else {
				check("vxd status", st)
			}
		})
	}
}
