package history

import (
	"context"
	"strings"
)

// RunsWithPrefix lists the runs whose id starts with prefix (hex, case
// insensitive), newest first, at most limit of them; a prefix that is not
// hex matches nothing.
func (s *Store) RunsWithPrefix(ctx context.Context, prefix string, limit int) ([]Run, error) {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if len(p) > 12 || (p != "" && !isHex(p)) {
		return nil, nil
	}
	return s.queryRuns(ctx, `SELECT `+runCols+` FROM runs WHERE id LIKE ? ORDER BY seq DESC LIMIT ?`, p+"%", clampLimit(limit))
}
