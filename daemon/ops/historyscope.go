package ops

import (
	"context"
	"fmt"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
)

// checkHistoryScope refuses a getRunHistory project or task that neither
// the configuration nor the history knows (a misspelling would otherwise
// read as "never ran"), naming the close names. A name only the history
// knows (a task since removed) is answered, with a note saying so.
func (e *Env) checkHistoryScope(ctx context.Context, h *history.Store, project, task string) (note string, err error) {
	m, err := e.CurrentModel()
	if err != nil {
		return "", nil // no model to check against: the history answers alone
	}
	recorded := func(f history.Filter) (bool, error) {
		f.Limit = 1
		rows, err := h.RecentExecutions(ctx, f)
		return len(rows) > 0, err
	}
	if project != "" && project != workspace.RootProject {
		if _, ok := m.Project(project); !ok {
			had, err := recorded(history.Filter{Project: project})
			if err != nil {
				return "", err
			}
			if !had {
				return "", opkit.Refuse("project", "no project named %q in this workspace or its history%s", project, workspace.CloseHint(project, projectNames(m)))
			}
			note = fmt.Sprintf("project %s is no longer in the configuration; these are its recorded executions", project)
		}
	}
	if task == "" {
		return note, nil
	}
	known := m.KnownTask(task)
	if known && project != "" && note == "" {
		_, known = m.Resolve(project, task)
	}
	if known {
		return note, nil
	}
	had, err := recorded(history.Filter{Project: project, Task: task})
	if err != nil {
		return "", err
	}
	if !had {
		where := "this workspace"
		if project != "" {
			where = "project " + project
		}
		return "", opkit.Refuse("task", "no task named %q in %s or its history%s", task, where, workspace.CloseHint(task, m.TaskNames()))
	}
	return joinNotes(note, fmt.Sprintf("task %s is no longer in the configuration; these are its recorded executions", task)), nil
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
