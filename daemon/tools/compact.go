package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// The compact catalog (mcp.tools "compact"): a handful of workflow-shaped
// tools instead of one per question, since a long tool list costs agents
// accuracy. Each compact tool is an adapter over the full catalog's tools:
// its "what" argument picks one, the other arguments go to it unchanged
// and are checked by it, and its answer is that tool's answer.

type compactGroup struct {
	name, title, desc string
	subs              []compactSub // the first is the default
}

type compactSub struct{ what, tool string }

var compactGroups = []compactGroup{
	{"inspect", "Inspect the workspace", "What is here and how is it configured?", []compactSub{
		{"tasks", "listTasks"}, {"config", "getConfig"}, {"workspace", "getWorkspaceInfo"}, {"lock", "checkLock"}, {"file", "getWorkspaceConfig"}}},
	{"plan", "Plan", "What would run, or what would adopting vx write? Nothing executes.", []compactSub{
		{"tasks", "planTasks"}, {"init", "planInit"}}},
	{"run", "Run tasks", "Run tasks (or a plan from plan).", []compactSub{{"tasks", "runTasks"}}},
	{"why", "Why did it re-run", "Why did a task re-execute, or how did a run differ from the one before?", []compactSub{
		{"rerun", "whyDidThisRerun"}, {"compare", "compareRuns"}}},
	{"failures", "Failures and logs", "Why did a run fail, and what did a task print?", []compactSub{
		{"failures", "getFailures"}, {"log", "getTaskLog"}}},
	{"history", "Run history", "What ran, how fast, how often it passed.", []compactSub{
		{"runs", "getRunHistory"}, {"last", "getLastRun"}, {"trends", "runTrends"}}},
	{"cache", "The cache", "The cache's state, a task's cache identity, or freeing space.", []compactSub{
		{"stats", "getCacheStats"}, {"key", "explainCacheKey"}, {"prune", "pruneCache"}}},
	{"docs", "Search the docs", "Where is X documented?", []compactSub{{"search", "searchDocs"}}},
	{"doctor", "Diagnose", "What stops vx working here, each with its fix?", []compactSub{{"check", "diagnose"}}},
}

// Compact turns the full catalog into the compact one. A group whose
// tools are all absent (runTasks under mcp.run false) is left out; a full
// tool no group names is not reachable in compact mode.
func Compact(full []mcpserver.Tool) []mcpserver.Tool {
	byName := map[string]mcpserver.Tool{}
	for _, t := range full {
		byName[t.Def.Name] = t
	}
	var out []mcpserver.Tool
	for _, g := range compactGroups {
		var subs []compactSub
		var tools []mcpserver.Tool
		for _, s := range g.subs {
			if t, ok := byName[s.tool]; ok {
				subs, tools = append(subs, s), append(tools, t)
			}
		}
		if len(subs) > 0 {
			out = append(out, compactTool(g, subs, tools))
		}
	}
	return out
}

func compactTool(g compactGroup, subs []compactSub, tools []mcpserver.Tool) mcpserver.Tool {
	var whats []string
	var desc strings.Builder
	desc.WriteString(g.desc)
	props := map[string]json.RawMessage{}
	readOnly, destructive := true, false
	var outputs []json.RawMessage
	for i, s := range subs {
		whats = append(whats, s.what)
		def := tools[i].Def
		fmt.Fprintf(&desc, " what=%q (%s): %s", s.what, def.Name, def.Description)
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(def.InputSchema, &in)
		for k, v := range in.Properties {
			if _, ok := props[k]; !ok {
				props[k] = v
			}
		}
		if a := def.Annotations; a != nil {
			readOnly = readOnly && a.ReadOnlyHint != nil && *a.ReadOnlyHint
			destructive = destructive || (a.DestructiveHint != nil && *a.DestructiveHint)
		}
		if len(def.OutputSchema) > 0 {
			outputs = append(outputs, def.OutputSchema)
		}
	}
	whatSchema, _ := json.Marshal(map[string]any{"type": "string", "enum": whats, "description": "which question (default " + whats[0] + "); the other arguments are that question's"})
	props["what"] = whatSchema
	in, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": false})
	ann := &mcp.ToolAnnotations{Title: g.title, ReadOnlyHint: mcp.Bool(readOnly), OpenWorldHint: mcp.Bool(false)}
	if !readOnly {
		ann.DestructiveHint = mcp.Bool(destructive)
	}
	def := mcp.Tool{Name: g.name, Title: g.title, Description: desc.String(), InputSchema: in, Annotations: ann}
	if len(outputs) == 1 {
		def.OutputSchema = outputs[0]
	} else if len(outputs) > 1 {
		def.OutputSchema, _ = json.Marshal(map[string]any{"type": "object", "anyOf": outputs})
	}
	return mcpserver.Tool{Def: def, Handler: func(ctx context.Context, call *mcpserver.Call) (any, error) {
		var args map[string]json.RawMessage
		if err := json.Unmarshal(call.Arguments, &args); err != nil {
			return nil, err
		}
		what := whats[0]
		if raw, ok := args["what"]; ok {
			if json.Unmarshal(raw, &what) != nil || !slices.Contains(whats, what) {
				return nil, fmt.Errorf("argument \"what\": %s is not one of %s", raw, strings.Join(whats, ", "))
			}
			delete(args, "what")
		}
		i := slices.Index(whats, what)
		rest, _ := json.Marshal(args)
		sub := *call
		sub.Name, sub.Arguments = tools[i].Def.Name, rest
		return tools[i].Handler(ctx, &sub)
	}}
}
