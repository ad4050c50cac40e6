//go:build cgo

package history

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// go-sqlite3 is the only file that names the driver's types: without cgo
// the driver is a stub whose types differ (sqlite_nocgo.go).

// connector opens go-sqlite3 connections without registering a driver name.
type connector struct {
	dsn    string
	driver *sqlite3.SQLiteDriver
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.driver }

func openDB(dsn string) *sql.DB {
	d := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d", mmapSize), nil)
		return err
	}}
	return sql.OpenDB(connector{dsn: dsn, driver: d})
}

// sqliteCode is SQLite's primary result code for err and SQLite's own
// message, or 0 and "" when err did not come from SQLite.
func sqliteCode(err error) (int, string) {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return 0, ""
	}
	return int(se.Code), se.Error()
}
