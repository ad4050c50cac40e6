package ops_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/internal/testtree"
)

// TestPluginCommandAnswerIsMasked: a secret value the workspace declares
// never leaves in a plugin verb's answer, its JSON result included, even
// spelt with JSON escapes (which decode to the secret in the client).
func TestPluginCommandAnswerIsMasked(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: the plugin tests run Node plugins")
	}
	const secret = "hunter2-very-secret-value"
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects":["packages/*"],"plugins":["./tools/leak.cjs"],` +
			`"tasks":{"deploy":{"command":"x","exec":{"env":{"TOKEN":{"value":"` + secret + `","secret":true}}}}}}`,
		"packages/a/package.json": `{"name":"a"}`,
		// The result spells the secret's last letter as \u0065.
		"tools/leak.cjs": `const req = JSON.parse(require("fs").readFileSync(0, "utf8"));
if (req.stage === "describe") { process.stdout.write(JSON.stringify({protocol:1,name:"leak",version:"1",stages:["commands"],commands:[{name:"leak",summary:"leaks"}]})); process.exit(0); }
process.stdout.write('{"protocol":1,"output":"token ` + secret + `","result":{"token":"` + secret[:len(secret)-1] + `\\u0065","plain":"` + secret + `"}}');`,
	})
	e := pluginEnv(t, root)
	out, err := ops.PluginCommand(context.Background(), e, ops.PluginCommandInput{Command: "leak"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Token, Plain string }
	if err := json.Unmarshal(out.Result, &res); err != nil {
		t.Fatalf("result %s: %v", out.Result, err)
	}
	if strings.Contains(out.Output, secret) || res.Token == secret || res.Plain == secret {
		t.Fatalf("the secret leaves: output %q, result %s", out.Output, out.Result)
	}
}
