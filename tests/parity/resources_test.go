//go:build !windows

package parity_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resourceRow is one resource read and the verb that prints the same JSON.
type resourceRow struct {
	uri      string
	template string // the template the uri fills, for a templated resource
	verb     []string
	file     string // without a verb: the workspace file the text is
	// tool, with a file, is the tool whose answer's text is the
	// resource's, with the verb that prints that answer.
	tool     string
	toolVerb []string
}

// resourcesAreTheVerbs reads each resource the daemon lists (and one URI
// of each template) and compares its text with the verb's --format json;
// a listed resource or template without a row fails.
func resourcesAreTheVerbs(t *testing.T, cs *mcp.ClientSession, root string) {
	rows := []resourceRow{
		{uri: "vx://runs/latest", verb: []string{"last", "--format", "json"}},
		{uri: "vx://tasks/app%23test/log", template: "vx://tasks/{taskId}/log", verb: []string{"last", "--log", "app#test", "--format", "json"}},
		{uri: "vx://tasks/lib%23build/log", template: "vx://tasks/{taskId}/log", verb: []string{"last", "--log", "lib#build", "--format", "json"}},
		// With no secret in it, the resource is the file as written;
		// getWorkspaceConfig and vx config answer the same text.
		{uri: "vx://workspace/config", file: "vx.workspace.json", tool: "getWorkspaceConfig", toolVerb: []string{"config", "--format", "json"}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	have := map[string]bool{}
	for _, r := range rows {
		have[r.uri], have[r.template] = true, true
	}
	for res, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		if !have[res.URI] {
			t.Errorf("resource %s has no row in the parity table (tests/parity)", res.URI)
		}
	}
	for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		if !have[tmpl.URITemplate] {
			t.Errorf("resource template %s has no row in the parity table (tests/parity)", tmpl.URITemplate)
		}
	}
	for _, r := range rows {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.uri})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("resources/read %s: %v %+v", r.uri, err, res)
		}
		text := res.Contents[0].Text
		if r.verb == nil {
			b, err := os.ReadFile(filepath.Join(root, r.file))
			if err != nil {
				t.Fatal(err)
			}
			if text != string(b) {
				t.Errorf("%s is not %s as written:\n%s", r.uri, r.file, text)
			}
			if r.tool != "" {
				got := callTool(t, cs, r.tool, map[string]any{})
				if m, _ := got.(map[string]any); m == nil || m["text"] != text {
					t.Errorf("%s's text is not %s's:\n%v", r.tool, r.uri, got)
				}
				verbPrints(t, root, row{tool: r.tool, verb: r.toolVerb}, got, nil)
			}
			continue
		}
		verbPrints(t, root, row{tool: r.uri, verb: r.verb}, decode(t, r.uri, []byte(text)), nil)
	}
}
