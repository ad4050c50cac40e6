package tools

import (
	"context"
	"net/url"
	"strings"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/mcpserver"
)

// Completion of prompt and template arguments: a task id completes in two
// steps (a project name, then web# → web#build, web#test), a run id by
// prefix, newest run first.

// taskIDCompleter proposes project names ("web#") until a # is typed,
// then the task ids of that project. escaped is for a URI template
// variable: what is typed and proposed is URL-encoded (# as %23).
func taskIDCompleter(e *ops.Env, escaped bool) mcpserver.Completer {
	return func(ctx context.Context, typed string) ([]string, error) {
		if escaped {
			if u, err := url.PathUnescape(typed); err == nil {
				typed = u
			}
		}
		m, err := e.CurrentModel()
		if err != nil {
			return nil, err
		}
		var out []string
		proj, task, hasHash := strings.Cut(typed, "#")
		for _, p := range m.Projects {
			switch {
			case !hasHash && strings.HasPrefix(p.Name, proj):
				out = append(out, p.Name+"#")
			case hasHash && p.Name == proj:
				for _, name := range m.TaskNames() {
					if _, defined := m.Resolve(p.Name, name); defined && strings.HasPrefix(name, task) {
						out = append(out, p.Name+"#"+name)
					}
				}
			}
		}
		if escaped {
			for i, v := range out {
				out[i] = url.PathEscape(v)
			}
		}
		return out, nil
	}
}

// runIDCompleter proposes the recorded runs whose id starts with what was
// typed, newest first.
func runIDCompleter(e *ops.Env) mcpserver.Completer {
	return func(ctx context.Context, typed string) ([]string, error) {
		h, err := e.History(ctx)
		if err != nil {
			return nil, err
		}
		runs, err := h.RunsWithPrefix(ctx, typed, 101)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(runs))
		for i, r := range runs {
			out[i] = r.ID
		}
		return out, nil
	}
}
