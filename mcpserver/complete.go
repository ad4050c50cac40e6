package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vzn/vx/protocol/mcp"
)

// Completer proposes values for one argument of a prompt or resource
// template from what the user has typed so far (value), best first.
type Completer func(ctx context.Context, value string) ([]string, error)

// maxCompletions is the most values one completion/complete answers, as
// the specification allows; maxTyped bounds what is completed.
const (
	maxCompletions = 100
	maxTyped       = 512
)

// complete answers completion/complete for a prompt's or a resource
// template's argument; an unknown prompt, template or argument is -32602.
func (ss *Session) complete(ctx context.Context, params json.RawMessage) (any, error) {
	var p mcp.CompleteParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if len(p.Argument.Value) > maxTyped {
		return nil, invalidParams("argument.value is %d bytes; at most %d are completed", len(p.Argument.Value), maxTyped)
	}
	completers, args, what, err := ss.srv.completionTarget(p.Ref.Type, p.Ref.Name, p.Ref.URI)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(args, p.Argument.Name) {
		return nil, invalidParams("%s has no argument %q; its arguments: %s", what, p.Argument.Name, strings.Join(args, ", "))
	}
	values := []string{}
	if c := completers[p.Argument.Name]; c != nil {
		got, err := c(ctx, p.Argument.Value)
		if err != nil {
			return nil, fmt.Errorf("completing %s: %w", p.Argument.Name, err)
		}
		values = append(values, got...)
	}
	res := mcp.CompleteResult{}
	res.Completion.Total = len(values)
	if len(values) > maxCompletions {
		values, res.Completion.HasMore = values[:maxCompletions], true
	}
	res.Completion.Values = values
	return res, nil
}

// completionTarget finds the prompt (by name) or the resource template
// (by uri) a completion's ref names: its completers, the names of its
// arguments and how an error speaks of it.
func (s *Server) completionTarget(typ, name, uri string) (map[string]Completer, []string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch typ {
	case mcp.RefPrompt:
		if i := slices.IndexFunc(s.prompts, func(x Prompt) bool { return x.Def.Name == name }); i >= 0 {
			return s.prompts[i].Complete, promptArgs(s.prompts[i].Def), fmt.Sprintf("prompt %q", name), nil
		}
		return nil, nil, "", invalidParams("unknown prompt %q; prompts/list names the prompts", name)
	case mcp.RefResource:
		i := slices.IndexFunc(s.templates, func(x compiledTemplate) bool { return x.Def.URITemplate == uri })
		if i < 0 {
			return nil, nil, "", invalidParams("unknown resource template %q; resources/templates/list names the templates", uri)
		}
		var args []string
		for _, n := range s.templates[i].re.SubexpNames() {
			if n != "" {
				args = append(args, n)
			}
		}
		return s.templates[i].Complete, args, fmt.Sprintf("resource template %q", uri), nil
	}
	return nil, nil, "", invalidParams("ref.type %q is not ref/prompt or ref/resource", typ)
}

// extraCapabilities declares what only some catalogs offer: completions
// when a completer exists, resource subscriptions when a resource is
// subscribable.
func (s *Server) extraCapabilities(c mcp.ServerCapabilities) mcp.ServerCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.prompts {
		if len(p.Complete) > 0 {
			c.Completions = &struct{}{}
		}
	}
	for _, t := range s.templates {
		if len(t.Complete) > 0 {
			c.Completions = &struct{}{}
		}
		if t.Subscribable && c.Resources != nil {
			c.Resources.Subscribe = true
		}
	}
	for _, r := range s.resources {
		if r.Subscribable && c.Resources != nil {
			c.Resources.Subscribe = true
		}
	}
	return c
}

// promptArgs names the arguments of a prompt, in its order.
func promptArgs(p mcp.Prompt) []string {
	var args []string
	for _, a := range p.Arguments {
		args = append(args, a.Name)
	}
	return args
}
