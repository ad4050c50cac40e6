package history

import (
	"context"
	"fmt"
)

// PeakRSS answers each task's largest recorded peak RSS (TaskStat's
// MaxPeakRSSBytes), for tasks that have one: what a run plans its memory
// budget with. It reads two columns of task_stats, where TaskStats
// computes every statistic of every task.
func (s *Store) PeakRSS(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return out, err
	}
	rows, err := db.QueryContext(ctx, `SELECT task_id, max_rss FROM task_stats WHERE max_rss > 0`)
	if err != nil {
		return out, fmt.Errorf("reading peak RSS: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var peak int64
		if err := rows.Scan(&id, &peak); err != nil {
			return out, fmt.Errorf("reading peak RSS: %w", err)
		}
		out[id] = peak
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("reading peak RSS: %w", err)
	}
	return out, nil
}
