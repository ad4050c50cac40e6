package history

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/vzn/vx/protocol/wire"
)

// Schema 4 → 5 adds executions.sandbox_violations: the violations of a
// sandboxed execution as a JSON array, NULL when it had none.

func addSandboxViolations(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `ALTER TABLE executions ADD COLUMN sandbox_violations TEXT`)
	return err
}

// sandboxJSON is the column's value: NULL for none.
func sandboxJSON(vs []wire.SandboxViolation) any {
	if len(vs) == 0 {
		return nil
	}
	b, err := json.Marshal(vs)
	if err != nil {
		return nil
	}
	return string(b)
}
