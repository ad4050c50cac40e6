package workspace_test

import (
	"strings"
	"testing"
)

// TestAnAnswerQuotedInAnErrorHidesEscapedSecrets: the start of a refused
// answer, quoted in the plugin's error (vx info, every command's warning,
// vx run's JSON summary), hides a secret value spelt with JSON escapes
// (a quote or a backslash in it is escaped by any JSON writer) as surely
// as one spelt plainly.
func TestAnAnswerQuotedInAnErrorHidesEscapedSecrets(t *testing.T) {
	needNode(t)
	cases := []struct{ name, answer string }{
		{"not an object", `JSON.stringify(["pa\"ss-w0rd-Q9"])`},
		{"a broken object", `'{"k":' + JSON.stringify("pa\"ss-w0rd-Q9") + ',}'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := pluginTree(t, map[string]string{
				"vx.workspace.json": `{"plugins":["./tools/p.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"PW":{"value":"pa\"ss-w0rd-Q9","secret":true}}}}}}`,
				"tools/p.cjs":       `require("fs").readFileSync(0, "utf8"); process.stdout.write(` + c.answer + `);`,
			})
			ps := mustLoad(t, root).Plugins()
			if len(ps) != 1 || !strings.Contains(ps[0].Error, "it starts") {
				t.Fatalf("plugins: %+v", ps)
			}
			if strings.Contains(ps[0].Error, "w0rd-Q9") {
				t.Fatalf("the error shows the secret (escaped): %s", ps[0].Error)
			}
		})
	}
}

// TestANameQuotedInAnErrorHidesACutSecret: a refused plugin or verb name
// is quoted cut to 40 bytes; the cut is made after the secrets are
// hidden, so a long secret value in the name is not shown in part.
func TestANameQuotedInAnErrorHidesACutSecret(t *testing.T) {
	needNode(t)
	const secret = "TOKEN0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH"
	for _, field := range []string{`name:"` + secret + ` x"`, `name:"p",commands:[{name:"` + secret + `",summary:"s"}]`} {
		root := pluginTree(t, map[string]string{
			"vx.workspace.json": `{"plugins":["./tools/p.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"PW":{"value":"` + secret + `","secret":true}}}}}}`,
			"tools/p.cjs": `require("fs").readFileSync(0, "utf8");
process.stdout.write(JSON.stringify({protocol:1,version:"1",stages:["commands"],` + field + `}));`,
		})
		ps := mustLoad(t, root).Plugins()
		if len(ps) != 1 || !strings.Contains(ps[0].Error, "describe: ") {
			t.Fatalf("plugins: %+v", ps)
		}
		if strings.Contains(ps[0].Error, secret[:20]) {
			t.Fatalf("the error shows part of the secret: %s", ps[0].Error)
		}
	}
}
