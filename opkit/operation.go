// Package opkit is the operation kit: how a question or action is
// declared once (Spec, Define) with a typed input and output, how an
// agent's JSON arguments fill the input (DecodeInput, the argument types),
// how an input is checked (Check: against its schema, then the input's
// Validate), and the one error a refusal of the input is (*Refusal). vx's
// operations (daemon/ops) and the platform's (platform/teamtools) are made
// with it; the command lines, --format json and the MCP server
// (mcpserver.AddOperation) are adapters over it. It links nothing of the
// engine.
package opkit

import (
	"context"
	"fmt"
	"reflect"
)

// Operation is one question or action, declared once: its name, what it
// does, its annotations, its typed input and output, and the function
// that answers it over an environment of type E (vx's *ops.Env, the
// platform's *teamops.Env).
type Operation[E any] struct {
	Name        string
	Title       string
	Description string
	ReadOnly    bool // answers without changing anything
	Destructive bool // may delete or overwrite (meaningful when not ReadOnly)
	Idempotent  bool // calling it again with the same input changes nothing more
	// CLIOnly marks a person's act that no MCP client may perform (vx
	// approve): it is a verb, never a tool.
	CLIOnly bool

	// Input and Output are the struct types of the input and the answer:
	// their JSON tags are the arguments and the answer's fields, their
	// jsonschema tags the descriptions.
	Input  reflect.Type
	Output reflect.Type

	modelOnly func(in any) bool
	do        func(ctx context.Context, e E, in any) (any, error)
	// decoded is do without the check, for an input Decode filled (and
	// so checked against the same schema) already.
	decoded func(ctx context.Context, e E, in any) (any, error)
}

// Spec is an operation's declaration, for Define.
type Spec[In, Out any] struct {
	Name, Title, Description          string
	ReadOnly, Destructive, Idempotent bool
	CLIOnly                           bool
	// ModelOnly says, for an input, that the answer depends only on the
	// workspace model and the input, so it may be kept until a reload.
	ModelOnly func(in *In) bool
}

// Define makes an operation from its declaration and its function. The
// operation checks its input (Check) before do sees it, so do never
// re-checks what an argument's type or the input's Validate refuses.
func Define[E, In, Out any](s Spec[In, Out], do func(ctx context.Context, e E, in In) (*Out, error)) *Operation[E] {
	op := &Operation[E]{Name: s.Name, Title: s.Title, Description: s.Description,
		ReadOnly: s.ReadOnly, Destructive: s.Destructive, Idempotent: s.Idempotent, CLIOnly: s.CLIOnly,
		Input: reflect.TypeFor[In](), Output: reflect.TypeFor[Out](),
		do: func(ctx context.Context, e E, in any) (any, error) {
			if err := Check(in); err != nil {
				return nil, err
			}
			return answer(ctx, e, in.(*In), do)
		},
		decoded: func(ctx context.Context, e E, in any) (any, error) { return answer(ctx, e, in.(*In), do) }}
	if s.ModelOnly != nil {
		op.modelOnly = func(in any) bool { return s.ModelOnly(in.(*In)) }
	}
	if op.Input.Kind() != reflect.Struct || op.Output.Kind() != reflect.Struct {
		panic(fmt.Sprintf("opkit: %s: input and output must be structs", s.Name))
	}
	return op
}

// answer is do's answer to *p, a nil *Out as a nil any.
func answer[E, In, Out any](ctx context.Context, e E, p *In, do func(ctx context.Context, e E, in In) (*Out, error)) (any, error) {
	out, err := do(ctx, e, *p)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Call checks in, a pointer to a value of the Input type, and answers it.
func (o *Operation[E]) Call(ctx context.Context, e E, in any) (any, error) {
	return o.do(ctx, e, in)
}

// ModelOnly reports whether the answer to in depends only on the model.
func (o *Operation[E]) ModelOnly(in any) bool { return o.modelOnly != nil && o.modelOnly(in) }

// Bind is the operation answering over e: what a server serves.
func (o *Operation[E]) Bind(e E) *Bound {
	return &Bound{Name: o.Name, Title: o.Title, Description: o.Description,
		ReadOnly: o.ReadOnly, Destructive: o.Destructive, Idempotent: o.Idempotent, CLIOnly: o.CLIOnly,
		Input: o.Input, Output: o.Output, ModelOnly: o.ModelOnly,
		Call:        func(ctx context.Context, in any) (any, error) { return o.do(ctx, e, in) },
		CallDecoded: func(ctx context.Context, in any) (any, error) { return o.decoded(ctx, e, in) }}
}

// Bound is an operation bound to its environment: its declaration and
// the function answering a checked-and-decoded input (a pointer to a
// value of Input).
type Bound struct {
	Name, Title, Description          string
	ReadOnly, Destructive, Idempotent bool
	CLIOnly                           bool
	Input, Output                     reflect.Type
	ModelOnly                         func(in any) bool
	Call                              func(ctx context.Context, in any) (any, error)
	// CallDecoded is Call for an input Decode filled: Decode checked it
	// against the same schema and rule, so it is not checked twice.
	CallDecoded func(ctx context.Context, in any) (any, error)
}
