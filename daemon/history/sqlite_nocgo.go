//go:build !cgo

package history

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
)

// errNoSQLite is what every history call answers in a vx built without cgo:
// go-sqlite3 is C, and such a build has no SQLite in it. Release builds
// always have cgo; this build exists so that the rest type-checks on any
// platform (make vet-cross).
var errNoSQLite = errors.New("run history needs SQLite, and this vx was built without cgo (CGO_ENABLED=0): rebuild it with cgo")

// noSQLite is a connector whose every connection fails with errNoSQLite.
type noSQLite struct{}

func (noSQLite) Connect(context.Context) (driver.Conn, error) { return nil, errNoSQLite }
func (noSQLite) Driver() driver.Driver                        { return noSQLite{} }
func (noSQLite) Open(string) (driver.Conn, error)             { return nil, errNoSQLite }

func openDB(string) *sql.DB { return sql.OpenDB(noSQLite{}) }

// sqliteCode answers 0 and "": without SQLite no error comes from it.
func sqliteCode(error) (int, string) { return 0, "" }
