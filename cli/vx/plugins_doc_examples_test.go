package vx

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// docBlocks are the fenced code blocks of docs/plugins.md's section whose
// heading starts with heading, each with its language, in order.
func docBlocks(t *testing.T, heading string) (langs, blocks []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "plugins.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n"+heading)
	if !ok {
		t.Fatalf("docs/plugins.md has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for rest := section; ; {
		_, after, ok := strings.Cut(rest, "\n```")
		if !ok {
			return langs, blocks
		}
		lang, body, _ := strings.Cut(after, "\n")
		code, tail, _ := strings.Cut(body, "```\n")
		langs, blocks, rest = append(langs, lang), append(blocks, code), tail
	}
}

// docBlock is the only block of lang in langs/blocks.
func docBlock(t *testing.T, langs, blocks []string, lang string) string {
	t.Helper()
	var found []string
	for i, l := range langs {
		if l == lang {
			found = append(found, blocks[i])
		}
	}
	if len(found) != 1 {
		t.Fatalf("docs/plugins.md: %d %s blocks in the section, want 1", len(found), lang)
	}
	return found[0]
}

// typecheckProjects are the projects vx show lists with a typecheck task
// from the plugin tsc, running tsc --noEmit -p . there.
func typecheckProjects(t *testing.T, root string) []string {
	t.Helper()
	code, out, errs := runWithStdin(root, "", "show", "--format", "json")
	if code != 0 || errs != "" {
		t.Fatalf("vx show: exit %d: %s", code, errs)
	}
	var shown struct {
		Projects []struct {
			Name  string
			Tasks []struct {
				Task, Command, CommandSource string
				InferredFrom                 *struct{ Plugin, File string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("vx show --format json: %v", err)
	}
	var got []string
	for _, p := range shown.Projects {
		for _, task := range p.Tasks {
			if task.Task == "typecheck" && task.Command == "tsc --noEmit -p ." && task.CommandSource == "plugin" && task.InferredFrom != nil && task.InferredFrom.Plugin == "tsc" {
				got = append(got, p.Name)
			}
		}
	}
	slices.Sort(got)
	return got
}

// TestPluginsDocFirstPlugin: the plugin of docs/plugins.md's "Writing a
// plugin: a first example", copied as it is written there, in Node and in Python, infers a
// typecheck task for each project with a tsconfig.json (the workspace
// root's project included) and none for a project without; the verb of
// "Stage `command`", spliced into it where the doc shows, prints a
// project's task and answers --help.
func TestPluginsDocFirstPlugin(t *testing.T) {
	needNode(t)
	langs, blocks := docBlocks(t, "## Writing a plugin")
	js := docBlock(t, langs, blocks, "js")
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"package.json":                `{"name": "root", "workspaces": ["packages/*"]}`,
		"vx.workspace.json":           strings.Replace(docBlock(t, langs, blocks, "json"), "{", `{ "projects": [".", "packages/*"],`, 1),
		"tools/vx-plugin-tsc.mjs":     js,
		"tsconfig.json":               `{"files": []}`,
		"packages/core/package.json":  `{"name": "core"}`,
		"packages/core/tsconfig.json": `{}`,
		"packages/web/package.json":   `{"name": "web", "dependencies": {"core": "*"}}`,
		"packages/web/tsconfig.json":  `{}`,
		"packages/docs/package.json":  `{"name": "docs"}`,
	})
	want := []string{"core", "root", "web"}
	if got := typecheckProjects(t, root); !slices.Equal(got, want) {
		t.Errorf("the Node plugin: typecheck in %q, want %q", got, want)
	}

	if _, err := exec.LookPath("python3"); err == nil {
		testtree.Write(t, root, map[string]string{
			"tools/vx-plugin-tsc.py": docBlock(t, langs, blocks, "python"),
			"vx.workspace.json":      `{"projects": [".", "packages/*"], "plugins": ["./tools/vx-plugin-tsc.py"]}`,
		})
		if err := os.Chmod(filepath.Join(root, "tools", "vx-plugin-tsc.py"), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := typecheckProjects(t, root); !slices.Equal(got, want) {
			t.Errorf("the Python plugin: typecheck in %q, want %q", got, want)
		}
	}

	cmdLangs, cmdBlocks := docBlocks(t, "## Stage `command`")
	var frags []string
	for i, l := range cmdLangs {
		if l == "js" {
			frags = append(frags, cmdBlocks[i])
		}
	}
	const describe, last = "  say({ name: \"tsc\", version: \"1.0.0\", stages: [\"tasks\"], globs: [\"**/tsconfig.json\"] });\n", "} else {\n"
	if len(frags) != 2 || strings.Count(js, describe) != 1 || strings.Count(js, last) != 1 {
		t.Fatalf("the doc's verb no longer fits its first plugin: %d js blocks in \"Stage `command`\", want 2, and the plugin's describe answer and last else once each", len(frags))
	}
	withVerb := strings.Replace(js, describe, frags[0], 1)
	withVerb = strings.Replace(withVerb, last, strings.TrimSuffix(frags[1], "}\n")+last, 1)
	testtree.Write(t, root, map[string]string{
		"tools/vx-plugin-tsc.mjs": withVerb,
		"vx.workspace.json":       `{"projects": [".", "packages/*"], "plugins": ["./tools/vx-plugin-tsc.mjs"]}`,
	})
	for _, c := range []struct {
		argv []string
		out  string
	}{
		{[]string{"tsgraph", "web"}, "web\ttsc --noEmit -p .\n"},
		{[]string{"tsgraph", "--help"}, "usage: vx tsgraph [PROJECT]\n"},
	} {
		if code, out, errs := runWithStdin(root, "", c.argv...); code != 0 || out != c.out {
			t.Errorf("vx %s: exit %d, printed %q (%s), want %q", strings.Join(c.argv, " "), code, out, errs, c.out)
		}
	}
}
