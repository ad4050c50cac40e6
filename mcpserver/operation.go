package mcpserver

import (
	"context"
	"fmt"
	"reflect"

	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/mcp"
)

// OperationOptions adjust how an operation is served as a tool: a
// description added to the declared one, an input type that extends the
// operation's (vxd's runTasks with planId), a handler in place of the
// operation's own function (Run gets the input decoded and checked, as
// opkit.Decode leaves it).
type OperationOptions struct {
	MoreDescription string
	Input           reflect.Type // with Run: its handler gets a pointer to this type
	Run             func(ctx context.Context, call *Call, in any) (any, error)
}

// AddOperation adds op to the tool catalog (see OperationTool) and
// returns the tool, for another surface to answer through the same
// handler (the platform's /v1 API).
func (s *Server) AddOperation(op *opkit.Bound, opts *OperationOptions) Tool {
	t := OperationTool(op, opts)
	s.mu.Lock()
	tools := append(append([]Tool(nil), s.tools...), t)
	s.mu.Unlock()
	s.SetTools(tools)
	return t
}

// OperationTool is op served as an MCP tool: inputSchema and outputSchema
// from its types, its annotations, and a handler that decodes the
// arguments into the typed input and checks it (refusing, never
// coercing: opkit.Decode) and answers through the operation. A
// refusal (*opkit.Refusal) is the tool's isError answer, worded by the
// refusal itself. opts may be nil.
func OperationTool(op *opkit.Bound, opts *OperationOptions) Tool {
	if opts == nil {
		opts = &OperationOptions{}
	}
	in := op.Input
	run := func(ctx context.Context, _ *Call, v any) (any, error) { return op.CallDecoded(ctx, v) }
	if opts.Input != nil {
		if opts.Run == nil {
			panic(fmt.Sprintf("mcpserver: %s: a replaced input needs its own Run", op.Name))
		}
		in = opts.Input
	}
	if opts.Run != nil {
		run = opts.Run
	}
	inSchema, _, err := opkit.InputSchema(in)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %s: %v", op.Name, err)) // a declaration bug; the catalogs' tests build every one
	}
	def := mcp.Tool{Name: op.Name, Title: op.Title, Description: op.Description + opts.MoreDescription,
		InputSchema: inSchema, OutputSchema: opkit.OutputSchema(reflect.New(op.Output).Interface()), Annotations: annotations(op)}
	return Tool{Def: def, Handler: func(ctx context.Context, call *Call) (any, error) {
		v := reflect.New(in).Interface()
		if err := opkit.Decode(call.Arguments, v); err != nil {
			return nil, err
		}
		return run(ctx, call, v)
	}}
}

// annotations are the hints an operation's declaration gives a client.
func annotations(op *opkit.Bound) *mcp.ToolAnnotations {
	ann := &mcp.ToolAnnotations{Title: op.Title, ReadOnlyHint: mcp.Bool(op.ReadOnly), OpenWorldHint: mcp.Bool(false)}
	if !op.ReadOnly {
		ann.DestructiveHint = mcp.Bool(op.Destructive)
		ann.IdempotentHint = mcp.Bool(op.Idempotent)
	}
	return ann
}
