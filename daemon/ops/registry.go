package ops

import (
	"context"
	"fmt"
	"reflect"
)

// Operation is one question or action vx answers, declared once: its
// name, what it does, its annotations, its typed input and output, and the
// function that answers it. The MCP catalog (daemon/tools) and the verbs
// are generated from Operations; nothing re-declares an argument.
type Operation struct {
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
	do        func(ctx context.Context, e *Env, in any) (any, error)
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

// Define makes an operation from its declaration and its function.
func Define[In, Out any](s Spec[In, Out], do func(ctx context.Context, e *Env, in In) (*Out, error)) *Operation {
	op := &Operation{Name: s.Name, Title: s.Title, Description: s.Description,
		ReadOnly: s.ReadOnly, Destructive: s.Destructive, Idempotent: s.Idempotent, CLIOnly: s.CLIOnly,
		Input: reflect.TypeFor[In](), Output: reflect.TypeFor[Out](),
		do: func(ctx context.Context, e *Env, in any) (any, error) {
			out, err := do(ctx, e, *in.(*In))
			if err != nil {
				return nil, err
			}
			return out, nil
		}}
	if s.ModelOnly != nil {
		op.modelOnly = func(in any) bool { return s.ModelOnly(in.(*In)) }
	}
	if op.Input.Kind() != reflect.Struct || op.Output.Kind() != reflect.Struct {
		panic(fmt.Sprintf("ops: %s: input and output must be structs", s.Name))
	}
	return op
}

// Call answers in, a pointer to a value of the Input type.
func (o *Operation) Call(ctx context.Context, e *Env, in any) (any, error) {
	return o.do(ctx, e, in)
}

// ModelOnly reports whether the answer to in depends only on the model.
func (o *Operation) ModelOnly(in any) bool { return o.modelOnly != nil && o.modelOnly(in) }

// Declare makes the declaration of an operation answered elsewhere (the
// team platform's, which run as a request's principal over another
// store): its server supplies the handler. Call refuses.
func Declare[In, Out any](s Spec[In, Out]) *Operation {
	op := Define(s, func(context.Context, *Env, In) (*Out, error) {
		return nil, fmt.Errorf("operation %s is served by its own handler, not by vx's Env", s.Name)
	})
	return op
}
