package vx

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// echoPlugin answers a command with the args it was given as its output
// (and the input, unless it is null as a command line's is),
// crashes under the option mode "crash" and hangs under "hang".
const echoPlugin = `import { readFileSync } from "node:fs";
const req = JSON.parse(readFileSync(0, "utf8"));
const mode = req.options.mode;
if (req.stage === "command" && mode === "hang") setTimeout(() => {}, 1e9);
else if (req.stage === "command" && mode === "crash") { console.error("boom"); process.exit(3); }
else process.stdout.write(JSON.stringify(req.stage === "describe"
  ? {protocol: 1, name: "echo", version: "1", stages: ["commands"], commands: [{name: "dump", summary: "prints\nits args\tback"}]}
  : {protocol: 1, output: JSON.stringify(req.args) + ("input" in req && req.input === null ? "" : " and input " + JSON.stringify(req.input)) + "\n",
     result: null, exitCode: 0}));
`

// needNode skips a test of a Node plugin where node is not on PATH, and
// fails it under CI, which must run it.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: the plugin tests run a Node plugin")
	}
}

// pluginVerbWorkspace is a workspace whose plugin adds the verb dump, in
// mode (see echoPlugin); it skips without node (fails under CI).
func pluginVerbWorkspace(t *testing.T, mode string) string {
	t.Helper()
	needNode(t)
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"plugins": [{"plugin": "./tools/echo.mjs", "timeout": "1s", "options": {"mode": "` + mode + `"}}]}`,
		"tools/echo.mjs":    echoPlugin,
	})
	return root
}

// TestPluginVerbEndOfFlags: "--" ends vx's flags for a plugin verb as for
// every verb: what follows goes to the plugin as it is (a "--format json"
// there is the plugin's), "--" itself is not passed, and vx's own
// --format json is taken only before it. The request always has "args"
// (an array, empty when none) and "input" (null), as docs/plugins.md
// shows it.
func TestPluginVerbEndOfFlags(t *testing.T) {
	root := pluginVerbWorkspace(t, "ok")
	for _, tc := range []struct {
		argv   []string
		args   []string // what the plugin was given
		asJSON bool     // vx printed the whole answer as JSON
	}{
		{[]string{"dump", "a", "b"}, []string{"a", "b"}, false},
		{[]string{"dump"}, []string{}, false},
		{[]string{"dump", "--format", "json"}, []string{}, true},
		{[]string{"dump", "a", "--format", "json"}, []string{"a"}, true},
		{[]string{"dump", "a", "--format=json"}, []string{"a"}, true},
		{[]string{"dump", "--", "--format", "json"}, []string{"--format", "json"}, false},
		{[]string{"dump", "--", "--format=json"}, []string{"--format=json"}, false},
		{[]string{"dump", "a", "--", "b", "--format", "json"}, []string{"a", "b", "--format", "json"}, false},
		{[]string{"dump", "--format", "json", "--", "x"}, []string{"x"}, true},
		{[]string{"dump", "a", "--", "--", "b"}, []string{"a", "--", "b"}, false},
		{[]string{"dump", "--"}, []string{}, false},
		{[]string{"dump", "", " ", "ü -x"}, []string{"", " ", "ü -x"}, false},
		{[]string{"dump", "--format", "text"}, []string{"--format", "text"}, false},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			code, out, errs := runWithStdin(root, "", tc.argv...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errs)
			}
			if tc.asJSON {
				var whole struct{ Output string }
				if err := json.Unmarshal([]byte(out), &whole); err != nil || whole.Output == "" {
					t.Fatalf("want the whole answer as JSON, got %q (%v)", out, err)
				}
				out = whole.Output
			}
			var args []string
			if err := json.Unmarshal([]byte(out), &args); err != nil || args == nil {
				t.Fatalf("want the plugin's output (its args, an array, and a null input), got %q (%v)", out, err)
			}
			if !slices.Equal(args, tc.args) {
				t.Errorf("the plugin was given %q, want %q", args, tc.args)
			}
		})
	}
}

// TestPluginVerbFailureExitsOne: a plugin verb whose plugin crashes or
// outlives its timeout ran and failed: exit 1 naming the plugin, not 2
// (which says vx refused the command line before doing anything).
func TestPluginVerbFailureExitsOne(t *testing.T) {
	for _, mode := range []string{"crash", "hang"} {
		t.Run(mode, func(t *testing.T) {
			root := pluginVerbWorkspace(t, mode)
			code, out, errs := runWithStdin(root, "", "dump", "x")
			if code != 1 || !strings.Contains(errs, "echo") {
				t.Errorf("exit %d, want 1 and a message naming the plugin: %s%s", code, out, errs)
			}
		})
	}
}

// TestPluginVerbInHelp: vx help lists a plugin verb on one line, however
// its summary is spaced (a newline in it would start a line of its own).
func TestPluginVerbInHelp(t *testing.T) {
	root := pluginVerbWorkspace(t, "ok")
	code, out, errs := runWithStdin(root, "", "help")
	if code != 0 || !strings.Contains(out, "\n  dump     prints its args back (plugin echo)\n") {
		t.Errorf("vx help: exit %d%s\n%s", code, errs, out)
	}
}

// TestAVerbOfAFailedPluginIsExplained: when a plugin fails to load, vx
// help and an unknown verb (maybe the failed plugin's) say which plugin
// failed and why, on stderr.
func TestAVerbOfAFailedPluginIsExplained(t *testing.T) {
	root := pluginVerbWorkspace(t, "ok")
	testtree.Write(t, root, map[string]string{"tools/echo.mjs": `process.stderr.write("no config\n"); process.exit(4);`})
	code, _, errs := runWithStdin(root, "", "dump")
	if code != 2 || !strings.Contains(errs, `unknown command "dump"`) || !strings.Contains(errs, "vx: warning: plugin ./tools/echo.mjs") ||
		!strings.Contains(errs, "exited with exit status 4") {
		t.Errorf("vx dump: exit %d\n%s", code, errs)
	}
	if code, _, errs := runWithStdin(root, "", "help"); code != 0 || !strings.Contains(errs, "vx: warning: plugin ./tools/echo.mjs") {
		t.Errorf("vx help: exit %d\n%s", code, errs)
	}
}
