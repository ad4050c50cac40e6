package workspace_test

import (
	"strings"
	"testing"
)

// TestBadDescribeAnswersAreRefused: a describe answer that is not the
// protocol's (garbage, no or another protocol, an unknown field, a name,
// stage, glob or verb the protocol does not allow) refuses the plugin
// with the reason named, stores nothing, and adds no verb.
func TestBadDescribeAnswersAreRefused(t *testing.T) {
	needNode(t)
	cases := []struct{ name, answer, want string }{
		{"garbage", `"not json"`, "not one JSON object"},
		{"no protocol", `{name:"p",version:"1",stages:["tasks"]}`, `no "protocol"`},
		{"another protocol", `{protocol:2,name:"p",version:"1",stages:["tasks"]}`, "answers protocol 2"},
		{"unknown field", `{protocol:1,name:"p",version:"1",stages:["tasks"],glob:["**/x"]}`, `unknown field "glob"`},
		{"bad name", `{protocol:1,name:"x y",version:"1",stages:["tasks"]}`, "not a plugin name"},
		{"bad stage", `{protocol:1,name:"p",version:"1",stages:["bogus"]}`, `stage "bogus"`},
		{"bad glob", `{protocol:1,name:"p",version:"1",stages:["tasks"],globs:["../**"]}`, `glob "../**"`},
		{"tool schema not an object's", `{protocol:1,name:"p",version:"1",stages:["commands"],commands:[{name:"v",summary:"s",readOnly:true,inputSchema:{type:"array"}}]}`, `command "v": its inputSchema cannot check`},
		{"bad verb", `{protocol:1,name:"p",version:"1",stages:["commands"],commands:[{name:"Bad_Verb",summary:"s"}]}`, `"Bad_Verb" is not a verb name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := `require("fs").readFileSync(0, "utf8");
const a = ` + c.answer + `;
process.stdout.write(typeof a === "string" ? a : JSON.stringify(a));
`
			root := pluginTree(t, map[string]string{
				"vx.workspace.json": `{"plugins":["./tools/bad.cjs"]}`,
				"tools/bad.cjs":     script,
			})
			for load := 1; load <= 2; load++ { // the second finds nothing stored
				m := mustLoad(t, root)
				ps := m.Plugins()
				if len(ps) != 1 {
					t.Fatalf("plugins: %+v", ps)
				}
				if !strings.Contains(ps[0].Error, "plugin ./tools/bad.cjs") || !strings.Contains(ps[0].Error, "describe: ") || !strings.Contains(ps[0].Error, c.want) {
					t.Fatalf("load %d: error lacks the plugin, the stage or %q: %q", load, c.want, ps[0].Error)
				}
				if ps[0].Name != "" || len(ps[0].Commands) != 0 || len(ps[0].Stages) != 0 {
					t.Fatalf("load %d: a refused describe answer is used: %+v", load, ps[0])
				}
			}
		})
	}
}
