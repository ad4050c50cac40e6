package teamops

import (
	"context"
	"fmt"

	"github.com/vzn/vx/platform/tokens"
)

// FlakyTask is a task one of whose cache keys both passed and failed.
type FlakyTask struct {
	TaskID    string `json:"taskId"`
	FlakyKeys int    `json:"flakyKeys"`
	Passes    int    `json:"passes"`
	Failures  int    `json:"failures"`
}

// FlakyOutput answers the dashboard's flaky tasks.
type FlakyOutput struct {
	Workspace WorkspaceRef `json:"workspace"`
	Tasks     []FlakyTask  `json:"tasks"`
}

// Flaky lists the workspace's flaky tasks: only a real nondeterminism
// signal counts — the same key produced both a pass and a failure.
func (e *Env) Flaky(ctx context.Context, p *tokens.Principal, s Scope) (*FlakyOutput, error) {
	ws, err := e.workspace(ctx, p, s)
	if err != nil {
		return nil, err
	}
	rows, err := e.Pool.Query(ctx, `SELECT task_id, count(*), sum(passes), sum(failures) FROM (
		SELECT task_id, key, count(*) FILTER (WHERE status = 'passed') AS passes,
			count(*) FILTER (WHERE status IN ('failed', 'timedOut')) AS failures
		FROM executions WHERE org_id = $1 AND workspace_id = $2 AND key <> '' AND cache <> 'hit'
		GROUP BY task_id, key) k
		WHERE passes > 0 AND failures > 0 GROUP BY task_id ORDER BY sum(failures) DESC, task_id LIMIT 100`, p.OrgID, ws.ID)
	if err != nil {
		return nil, fmt.Errorf("reading flaky tasks: %w", err)
	}
	defer rows.Close()
	out := &FlakyOutput{Workspace: *ws, Tasks: []FlakyTask{}}
	for rows.Next() {
		var f FlakyTask
		if err := rows.Scan(&f.TaskID, &f.FlakyKeys, &f.Passes, &f.Failures); err != nil {
			return nil, fmt.Errorf("reading flaky tasks: %w", err)
		}
		out.Tasks = append(out.Tasks, f)
	}
	return out, rows.Err()
}
