//go:build cgo

package history

import (
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// TestResultCodesAreSQLites pins history's own result codes, which the
// portable code compares against, to go-sqlite3's.
func TestResultCodesAreSQLites(t *testing.T) {
	for _, c := range []struct {
		ours   int
		theirs sqlite3.ErrNo
	}{
		{codeBusy, sqlite3.ErrBusy}, {codeLocked, sqlite3.ErrLocked}, {codeCorrupt, sqlite3.ErrCorrupt},
		{codeConstraint, sqlite3.ErrConstraint}, {codeNotADB, sqlite3.ErrNotADB},
	} {
		if c.ours != int(c.theirs) {
			t.Errorf("history says %d for %v; go-sqlite3 says %d", c.ours, c.theirs, int(c.theirs))
		}
	}
}
