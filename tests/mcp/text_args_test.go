package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/textargs"
)

// TestTextArgumentsRefused sends, to every tool vxd lists, a NUL, bytes
// that are not UTF-8 and an unpaired surrogate escape in each string
// argument (inside arrays and objects too): each is an argument error
// naming the argument and the rule, never an answer computed from a
// mangled value.
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
}
