package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

var update = flag.Bool("update", false, "rewrite the expected answers of the stateless transcripts")

// The 2026-07-28 transcripts live beside the session era's in
// mcpserver/testdata/conformance; they are replayed here because
// the revision's rules are partly HTTP (headers, statuses).
const statelessTranscripts = "../mcpserver/testdata/conformance/2026-07-28"

type httpStep struct {
	headers map[string]string
	order   []string
	body    string
	expect  string
}

func parseHTTPTranscript(t *testing.T, text string) (string, []httpStep) {
	t.Helper()
	var header string
	var steps []httpStep
	var section string
	var buf []string
	flush := func() {
		body := strings.TrimSpace(strings.Join(buf, "\n"))
		buf = nil
		switch section {
		case "":
			header = body
		case "send":
			st := httpStep{headers: map[string]string{}}
			head, payload, _ := strings.Cut(body, "\n\n")
			if !strings.Contains(body, "\n\n") {
				head, payload = "", body
			}
			for _, line := range strings.Split(head, "\n") {
				if k, v, ok := strings.Cut(line, ": "); ok {
					st.headers[k] = v
					st.order = append(st.order, k)
				}
			}
			st.body = strings.TrimSpace(payload)
			steps = append(steps, st)
		case "expect":
			if len(steps) == 0 {
				t.Fatal("an expect section before any send")
			}
			steps[len(steps)-1].expect = body
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			section = strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --")
			continue
		}
		buf = append(buf, line)
	}
	flush()
	return header, steps
}

// post sends one step and renders the answer as a transcript expects it.
func (st httpStep) post(t *testing.T, d *daemon) string {
	req, err := http.NewRequest(http.MethodPost, d.URL+"/mcp", strings.NewReader(st.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range st.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	lines := []string{fmt.Sprintf("%d %s", resp.StatusCode, mt)}
	if sid := resp.Header.Get(mcp.HeaderSessionID); sid != "" {
		lines[0] += " (session)"
	}
	if mt == "text/event-stream" {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				lines = append(lines, data)
			}
		}
	} else if b, _ := io.ReadAll(resp.Body); len(b) > 0 {
		lines = append(lines, strings.TrimSpace(string(b)))
	}
	return strings.Join(lines, "\n")
}

func sameAnswer(got, want string) bool {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		var x, y any
		if json.Unmarshal([]byte(g[i]), &x) != nil || json.Unmarshal([]byte(w[i]), &y) != nil {
			if g[i] != w[i] {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// conformanceDaemon serves the test tools plus a resource, a template and
// a prompt, with a tool that logs at two levels.
func conformanceDaemon(t *testing.T) *daemon {
	d := startDaemon(t, 0)
	tools := testTools(d.started)
	tools[1].Handler = func(ctx context.Context, c *mcpserver.Call) (any, error) {
		for i := 1; i <= 2; i++ {
			c.Progress(float64(i), 2, fmt.Sprintf("step %d", i))
		}
		c.Log(mcp.LevelInfo, "done with secret")
		c.Log(mcp.LevelDebug, "too quiet")
		return map[string]int{"steps": 2}, nil
	}
	d.Srv.SetTools(tools)
	if err := d.Srv.SetResources(
		[]mcpserver.Resource{{Def: mcp.Resource{URI: "vx://config", Name: "config"}, Read: func(ctx context.Context) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: "vx://config", Text: "{}"}}}, nil
		}}},
		[]mcpserver.ResourceTemplate{{Def: mcp.ResourceTemplate{URITemplate: "vx://tasks/{taskId}/log", Name: "log"},
			Read: func(ctx context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: uri, Text: "log of " + vars["taskId"]}}}, nil
			}}},
	); err != nil {
		t.Fatal(err)
	}
	d.Srv.SetPrompts([]mcpserver.Prompt{{Def: mcp.Prompt{Name: "diagnose", Arguments: []mcp.PromptArgument{{Name: "runId", Required: true}}},
		Get: func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("diagnose " + args["runId"])}}}, nil
		}}})
	return d
}

func TestStatelessConformanceTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(statelessTranscripts, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			header, steps := parseHTTPTranscript(t, string(raw))
			d := conformanceDaemon(t)
			var out strings.Builder
			out.WriteString(header + "\n")
			for i, st := range steps {
				got := st.post(t, d)
				if !*update && !sameAnswer(got, st.expect) {
					t.Errorf("step %d: sent\n  %s\ngot\n  %s\nwant\n  %s", i+1, st.body, got, st.expect)
				}
				out.WriteString("-- send --\n")
				for _, k := range st.order {
					out.WriteString(k + ": " + st.headers[k] + "\n")
				}
				if len(st.order) > 0 {
					out.WriteString("\n")
				}
				out.WriteString(st.body + "\n-- expect --\n" + got + "\n")
			}
			if *update {
				if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
