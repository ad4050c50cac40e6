package mcp

import (
	"encoding/json"
	"testing"
)

func TestNegotiate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2026-07-28", Latest},
		{"", Latest},
		{"1999-01-01", Latest},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := Negotiate(tc.in); got != tc.want {
				t.Errorf("Negotiate(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestBatchesAllowed(t *testing.T) {
	for _, rev := range Supported() {
		if got, want := BatchesAllowed(rev), rev == "2025-03-26"; got != want {
			t.Errorf("BatchesAllowed(%q) = %v, want %v", rev, got, want)
		}
	}
}

func TestSeverity(t *testing.T) {
	if LevelDebug.Severity() >= LevelError.Severity() || LoggingLevel("loud").Severity() != -1 {
		t.Error("severity order is wrong")
	}
}

func TestToolJSON(t *testing.T) {
	tool := Tool{
		Name:        "listTasks",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true), DestructiveHint: Bool(false)},
	}
	got, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"listTasks","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"destructiveHint":false}}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	res, _ := json.Marshal(CallToolResult{Content: []Content{TextContent("x")}, IsError: true})
	if string(res) != `{"content":[{"type":"text","text":"x"}],"isError":true}` {
		t.Errorf("CallToolResult encodes as %s", res)
	}
}
