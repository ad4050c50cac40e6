//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/textargs"
)

// TestTextArgumentsRefused sends, to every tool vxd lists, a NUL, bytes
// that are not UTF-8 and an unpaired surrogate escape in each string
// argument (inside arrays and objects too): each is an argument error
// naming the argument and the rule, never an answer computed from a
// mangled value. Every prompt's arguments and resource template's
// variables are refused the same way.
func TestTextArgumentsRefused(t *testing.T) {
	root := workspace(t, "hist")
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := textargs.Cases(list.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < len(list.Tools) {
		t.Fatalf("only %d cases for %d tools: the schemas' string arguments were not found", len(cases), len(list.Tools))
	}
	c := newRaw(endpoint, token)
	c.initialize(t)
	for _, tc := range cases {
		name, _ := json.Marshal(tc.Tool)
		r := c.callRaw(t, `{"name":`+string(name)+`,"arguments":`+tc.Arguments+`}`)
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		text := ""
		if r.Error != nil {
			text = r.Error.Message
		} else if json.Unmarshal(r.Result, &res) == nil && len(res.Content) > 0 {
			text = res.Content[0].Text
		}
		if err := textargs.Check(tc, res.IsError, text); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d calls over %d tools", len(cases), len(list.Tools))
	promptsAndTemplates(t, cs, c)
}

// promptsAndTemplates sends the bad texts in each argument of every
// prompt and in each variable of every resource template: each is an
// invalid-params error naming it.
func promptsAndTemplates(t *testing.T, cs *mcp.ClientSession, c *raw) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range prompts.Prompts {
		for _, a := range p.Arguments {
			for _, bad := range textargs.Bads {
				name, _ := json.Marshal(p.Name)
				arg, _ := json.Marshal(a.Name)
				resp, body := c.post(t, `{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":`+string(name)+`,"arguments":{`+string(arg)+`:`+bad.JSON+`}}}`)
				r := reply(t, resp, body)
				tc := textargs.Case{Tool: "prompt " + p.Name, Arg: a.Name, Bad: bad}
				if r.Error == nil {
					t.Errorf("%s: answered: %.300s", tc, r.Result)
				} else if err := textargs.Check(tc, true, r.Error.Message); err != nil {
					t.Error(err)
				}
				n++
			}
		}
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range templates.ResourceTemplates {
		open := strings.Index(tm.URITemplate, "{")
		end := strings.Index(tm.URITemplate, "}")
		if open < 0 || end < open {
			continue
		}
		v := tm.URITemplate[open+1 : end]
		for _, bad := range []struct{ esc, word string }{{"web%00%23build", "NUL"}, {"web%FF%23build", "UTF-8"}} {
			uri := tm.URITemplate[:open] + bad.esc + tm.URITemplate[end+1:]
			resp, body := c.post(t, `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"`+uri+`"}}`)
			r := reply(t, resp, body)
			if r.Error == nil || !strings.Contains(r.Error.Message, `"`+v+`"`) || !strings.Contains(r.Error.Message, bad.word) {
				t.Errorf("resources/read %s: want an error naming %s and saying %s, got %s", uri, v, bad.word, body)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no prompt argument and no template variable to try")
	}
	t.Logf("%d prompt and resource reads", n)
}
