// Command mcpsummary reads MCP JSON-RPC answers, one a line, and prints
// each in a few readable lines, in the order of their ids: the demo
// (scripts/demo.sh) pipes `vx mcp` through it. Its arguments name the
// requests, ID=LABEL (2=listTasks), so that each answer is printed under
// the call it answers; an answer that is an error says so.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// answer is one JSON-RPC answer.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result map[string]any  `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func main() {
	labels := map[string]string{}
	for _, a := range os.Args[1:] {
		if id, label, ok := strings.Cut(a, "="); ok {
			labels[id] = label
		}
	}
	var answers []answer
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			fmt.Printf("not JSON-RPC: %.120s\n", sc.Text())
			continue
		}
		answers = append(answers, a)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpsummary:", err)
		os.Exit(1)
	}
	sort.SliceStable(answers, func(i, j int) bool { return idNum(answers[i].ID) < idNum(answers[j].ID) })
	for _, a := range answers {
		id := string(a.ID)
		fmt.Printf("#%s %s: %s\n", id, labels[id], summary(a))
	}
}

// idNum is a numeric id's value, for the order; other ids go last.
func idNum(raw json.RawMessage) float64 {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 1e18
	}
	return f
}

// summary describes an answer in one or a few lines.
func summary(a answer) string {
	switch {
	case a.Error != nil:
		return fmt.Sprintf("ERROR %d: %s", a.Error.Code, a.Error.Message)
	case a.Result == nil:
		return "no result"
	}
	r := a.Result
	if tools, ok := r["tools"].([]any); ok {
		names := make([]string, 0, len(tools))
		for _, t := range tools {
			if m, ok := t.(map[string]any); ok {
				names = append(names, fmt.Sprint(m["name"]))
			}
		}
		return fmt.Sprintf("%d tools: %s", len(names), strings.Join(names, ", "))
	}
	if content, ok := r["content"].([]any); ok {
		return toolResult(r, content)
	}
	return fields(r, "  ")
}

// toolResult describes a tools/call answer: its error text, or the fields
// of its structured content.
func toolResult(r map[string]any, content []any) string {
	text := ""
	if len(content) > 0 {
		if m, ok := content[0].(map[string]any); ok {
			text, _ = m["text"].(string)
		}
	}
	if r["isError"] == true {
		return "refused (isError): " + text
	}
	sc, ok := r["structuredContent"].(map[string]any)
	if !ok && json.Unmarshal([]byte(text), &sc) != nil {
		return text
	}
	return "ok" + fields(sc, "  ")
}

// fields prints an object's fields one a line: scalars as they are, an
// array as its length and its first element's scalars, an object as its
// keys.
func fields(m map[string]any, indent string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		switch v := m[k].(type) {
		case []any:
			fmt.Fprintf(&b, "\n%s%s: %d item(s)", indent, k, len(v))
			if first, ok := firstObject(v); ok {
				fmt.Fprintf(&b, ", the first: %s", scalars(first))
			} else if len(v) > 0 {
				fmt.Fprintf(&b, ": %s", clip(fmt.Sprint(v), 100))
			}
		case map[string]any:
			fmt.Fprintf(&b, "\n%s%s: %s", indent, k, scalars(v))
		default:
			fmt.Fprintf(&b, "\n%s%s: %s", indent, k, clip(fmt.Sprint(v), 100))
		}
	}
	return b.String()
}

func firstObject(v []any) (map[string]any, bool) {
	if len(v) == 0 {
		return nil, false
	}
	m, ok := v[0].(map[string]any)
	return m, ok
}

// scalars is an object's scalar fields, key=value, and its other keys.
func scalars(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		switch v := m[k].(type) {
		case map[string]any, []any:
			parts = append(parts, k+"{…}")
		case string:
			parts = append(parts, k+"="+clip(v, 60))
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return clip(strings.Join(parts, " "), 240)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
