package workspace_test

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAStoredDescribeTheChecksRefuseIsNotUsed: a sealed store in
// .vx/plugins holding a describe answer the checks now refuse (as a vx
// from before the checks stored it, when their error was dropped) is no
// store: the plugin is asked again, and what it answers now is used, not
// the stored glob, name or verb.
func TestAStoredDescribeTheChecksRefuseIsNotUsed(t *testing.T) {
	needNode(t)
	cases := []struct{ name, good, bad string }{
		{"glob", `"globs":["**/x.txt"]`, `"globs":["../**"]`},
		{"verb", `"name":"hi"`, `"name":"Bad_Verb"`},
		{"name", `"name":"good"`, `"name":"x y"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := `require("fs").readFileSync(0, "utf8");
process.stdout.write(JSON.stringify({protocol:1,name:"good",version:"1",stages:["commands"],globs:["**/x.txt"],
  commands:[{name:"hi",summary:"s"}]}));
`
			root := pluginTree(t, map[string]string{
				"vx.workspace.json": `{"plugins":["./tools/p.cjs"]}`,
				"tools/p.cjs":       script,
			})
			mustLoad(t, root) // stores the good answer
			dir := filepath.Join(root, ".vx", "plugins")
			es, err := os.ReadDir(dir)
			if err != nil || len(es) != 1 {
				t.Fatalf("stores: %v %v", es, err)
			}
			path := filepath.Join(dir, es[0].Name())
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			body := string(b[9:])
			if !strings.Contains(body, c.good) {
				t.Fatalf("store lacks %s: %s", c.good, body)
			}
			body = strings.Replace(body, c.good, c.bad, 1)
			sum := binary.BigEndian.AppendUint32(nil, crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli)))
			if err := os.WriteFile(path, []byte(hex.EncodeToString(sum)+"\n"+body), 0o644); err != nil {
				t.Fatal(err)
			}
			ps := mustLoad(t, root).Plugins()
			if len(ps) != 1 {
				t.Fatalf("plugins: %+v", ps)
			}
			p := ps[0]
			if p.Error != "" || p.Name != "good" || len(p.Globs) != 1 || p.Globs[0] != "**/x.txt" || len(p.Commands) != 1 || p.Commands[0].Name != "hi" {
				t.Fatalf("the stored describe the checks refuse was used: %+v", p)
			}
		})
	}
}
