package history

import (
	"context"
	"fmt"
	"strings"
)

// Integrity runs SQLite's integrity check on the history file (read-only)
// and returns the problems it reports, none when the file is healthy or
// does not exist yet. At most 20 problems are listed.
func (s *Store) Integrity(ctx context.Context) ([]string, error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check(20)`)
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("checking %s: %w", s.path, err)
		}
		if strings.TrimSpace(line) != "ok" {
			out = append(out, line)
		}
	}
	return out, rows.Err()
}
