package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// Resource URIs.
const (
	configURI    = "vx://workspace/config"
	LatestRunURI = "vx://runs/latest"
	TaskLogURI   = "vx://tasks/{taskId}/log"
)

func jsonResource(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: uri, MimeType: "application/json", Text: string(b)}}}, nil
}

// Resources lists the daemon's resources; each is mirrored by a tool
// (getWorkspaceConfig, getLastRun, getTaskLog) since clients' support
// varies, and each reads through that tool's operation.
func Resources(e *ops.Env) ([]mcpserver.Resource, []mcpserver.ResourceTemplate) {
	res := []mcpserver.Resource{
		{Def: mcp.Resource{URI: configURI, Name: "workspace-config", Title: "Workspace configuration", Description: "vx.workspace.json as written, secret Values masked", MimeType: "application/json"},
			Read: func(ctx context.Context) (*mcp.ReadResourceResult, error) {
				out, err := ops.WorkspaceConfig(ctx, e, ops.WorkspaceConfigInput{})
				if err != nil {
					return nil, err
				}
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: configURI, MimeType: "application/json", Text: out.Text}}}, nil
			}},
		{Def: mcp.Resource{URI: LatestRunURI, Name: "latest-run", Title: "Latest run", Description: "the latest run with every task's outcome (vx last --format json)", MimeType: "application/json"},
			Read: func(ctx context.Context) (*mcp.ReadResourceResult, error) {
				out, err := ops.Run(ctx, e, ops.RunInput{})
				if err != nil {
					return nil, err
				}
				return jsonResource(LatestRunURI, out)
			}, Subscribable: true},
	}
	tmpl := []mcpserver.ResourceTemplate{
		{Def: mcp.ResourceTemplate{URITemplate: TaskLogURI, Name: "task-log", Title: "A task's latest log", Description: "what a task printed in the latest run " +
			"that recorded it (vx last --log); taskId is project#task, URL-encoded (# as %23)", MimeType: "application/json"},
			Read: func(ctx context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
				id, err := url.PathUnescape(vars["taskId"])
				if err != nil {
					return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: taskId in %s is not URL-encoded text (write project#task with # as %%23)", uri)
				}
				in := ops.TaskLogInput{TaskID: opkit.TaskID(id)}
				if err := opkit.Check(&in); err != nil {
					return nil, paramError(err)
				}
				out, err := ops.TaskLog(ctx, e, in)
				if err != nil {
					return nil, paramError(err)
				}
				return jsonResource(uri, out)
			}, Subscribable: true, Complete: map[string]mcpserver.Completer{"taskId": taskIDCompleter(e, true)}},
	}
	return res, tmpl
}

// paramError renders an operation's refusal of an argument of a resource
// URI or a prompt as JSON-RPC invalid params (-32602) naming the argument:
// the request was wrong, the server did not fail. Other errors pass.
func paramError(err error) error {
	var r *opkit.Refusal
	if errors.As(err, &r) {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s", r.Error())
	}
	return err
}

// Prompts are the daemon's prompt templates.
func Prompts(e *ops.Env) []mcpserver.Prompt {
	return []mcpserver.Prompt{
		{Def: mcp.Prompt{Name: "diagnose-failure", Title: "Diagnose a failed run", Description: "Explain why the latest failed run (or runId) failed and propose fixes, from getFailures' answer.",
			Arguments: []mcp.PromptArgument{{Name: "runId", Description: "a run id or unique prefix; default: the latest failed run"}}},
			Get: func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
				out, err := ops.Failures(ctx, e, ops.FailuresInput{RunID: promptRunID(args)})
				if err != nil {
					return nil, paramError(err)
				}
				b, _ := json.MarshalIndent(out, "", "  ")
				text := "A vx run in this workspace failed. Here is what vx recorded (getFailures): each failed task, its exit code, its output and the source locations it names.\n\n```json\n" + string(b) +
					"\n```\n\nDiagnose the failure: name the root cause for each failed " +
					"task, point at the file and line to change, and propose the smallest fix. Tasks listed under blocked did not " +
					"run because an upstream task failed."
				return &mcp.GetPromptResult{Description: "Diagnose run " + out.RunID, Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.Content{Type: "text", Text: text}}}}, nil
			}, Complete: map[string]mcpserver.Completer{"runId": runIDCompleter(e)}},
		{Def: mcp.Prompt{Name: "explain-rerun", Title: "Explain why a task re-ran", Description: "Explain why a task re-executed instead of hitting the cache, from whyDidThisRerun's answer.",
			Arguments: []mcp.PromptArgument{{Name: "taskId", Description: "project#task", Required: true}, {Name: "runId", Description: "a run id or unique prefix; default: the task's latest run"}}},
			Get: func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
				in := ops.WhyInput{TaskID: opkit.TaskID(args["taskId"]), RunID: promptRunID(args)}
				if err := opkit.Check(&in); err != nil {
					return nil, paramError(err)
				}
				out, err := ops.Why(ctx, e, in)
				if err != nil {
					return nil, paramError(err)
				}
				b, _ := json.MarshalIndent(out, "", "  ")
				text := "vx compared this task's cache key with its previous execution (whyDidThisRerun):\n\n```json\n" + string(b) +
					"\n```\n\nExplain in plain words why the task re-ran: which files, " +
					"environment variables, definition fields or upstream tasks moved, and, for a moved upstream, which root " +
					"task's own inputs changed. Say whether the re-run was expected and, if not, what to change (inputs globs, " +
					"outputs, env) so it would hit the cache."
				return &mcp.GetPromptResult{Description: "Why " + out.TaskID + " re-ran", Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.Content{Type: "text", Text: text}}}}, nil
			}, Complete: map[string]mcpserver.Completer{"taskId": taskIDCompleter(e, false), "runId": runIDCompleter(e)}},
	}
}

// promptRunID is a prompt's optional runId argument.
func promptRunID(args map[string]string) *opkit.RunID {
	id, ok := args["runId"]
	if !ok {
		return nil
	}
	r := opkit.RunID(id)
	return &r
}
