package history

import (
	"context"
	"database/sql"
	"fmt"
)

// ProcStart is a number that, with the pid, names one process: its start
// time as the OS keeps it (procStart, one per OS), or 0 when no such
// process is alive (gone, or a zombie nobody reaped yet). A pid reused by
// another process has another start time. Its unit is the OS's own, so it
// is only ever compared with another ProcStart on the same machine.
func ProcStart(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	return procStart(pid)
}

// processGone reports whether the process that recorded a running run is
// certainly gone: it had a known pid, and that pid is dead or now belongs
// to a process started at another time.
func processGone(pid int, start int64) bool {
	if pid <= 0 {
		return false // recorded before vx kept it: cannot tell
	}
	now := ProcStart(pid)
	return now == 0 || (start != 0 && now != start)
}

// settleRun reads a run still "running" whose process is gone as
// interrupted, so every reader (read-only ones included) answers what
// happened even before a writer records it (ReapDeadRuns).
func settleRun(r *Run) {
	if r.Status == RunRunning && processGone(r.PID, r.ProcStart) {
		r.Status = RunInterrupted
	}
}

// ReapDeadRuns records as interrupted every run still "running" whose vx
// process is gone (killed with -9, crashed, the machine went down), with
// its totals and end taken from the executions it recorded, and no exit
// code (none was seen). It answers the ids it marked. vx run calls it on
// opening the history, vxd when it starts.
func (s *Store) ReapDeadRuns(ctx context.Context) ([]string, error) {
	if err := s.writable(); err != nil {
		return nil, fmt.Errorf("marking dead runs: %w", err)
	}
	rows, err := s.w.QueryContext(ctx, `SELECT id, pid, proc_start FROM runs WHERE status = ? AND pid > 0`, RunRunning)
	if err != nil {
		return nil, fmt.Errorf("marking dead runs: %w", err)
	}
	var dead []string
	for rows.Next() {
		var (
			id    string
			pid   int
			start int64
		)
		if err := rows.Scan(&id, &pid, &start); err != nil {
			rows.Close()
			return nil, fmt.Errorf("marking dead runs: %w", err)
		}
		if processGone(pid, start) {
			dead = append(dead, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("marking dead runs: %w", err)
	}
	if len(dead) == 0 {
		return nil, nil
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		for _, id := range dead {
			if err := s.finishHits(ctx, tx, id); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?1,
				ended_at = coalesce(nullif(max(coalesce((SELECT max(started_at + duration_ms * 1000000) FROM executions WHERE run_id = ?2), 0),
					coalesce((SELECT max(ended_at) FROM run_hits WHERE run_id = ?2), 0)), 0), started_at),
				tasks = (SELECT count(*) FROM executions WHERE run_id = ?2) + (SELECT coalesce(sum(n), 0) FROM run_hits WHERE run_id = ?2),
				failed = (SELECT count(*) FROM executions WHERE run_id = ?2 AND status IN (?3, ?4)),
				cached = (SELECT count(*) FROM executions WHERE run_id = ?2 AND cache = ?5) + (SELECT coalesce(sum(n), 0) FROM run_hits WHERE run_id = ?2)
				WHERE id = ?2 AND status = ?6`,
				RunInterrupted, id, StatusFailed, StatusTimedOut, CacheHit, RunRunning)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE runs SET duration_ms = max(0, (ended_at - started_at) / 1000000) WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("marking dead runs: %w", err)
	}
	return dead, nil
}

// ReapAt records dead runs as interrupted in the history at path, if there
// is one this vx reads as it is; anything else (no file, another schema
// version, a damaged file) is left alone for vx run to deal with. vxd
// calls it when it starts.
func ReapAt(ctx context.Context, path string, opts *Options) ([]string, error) {
	ro, err := OpenReadOnly(ctx, path, opts)
	if err != nil {
		return nil, nil
	}
	db, err := ro.reader(ctx)
	ro.Close()
	if err != nil || db == nil {
		return nil, nil
	}
	s, err := openWriter(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.ReapDeadRuns(ctx)
}
