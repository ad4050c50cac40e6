// Package store is the platform's PostgreSQL database: a pgx connection
// pool and the schema, whose migrations are embedded in the binary and
// applied by goose (under a PostgreSQL advisory lock, so replicas starting
// together migrate once).
package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is an open database.
type DB struct {
	Pool *pgxpool.Pool
}

// Open connects to url (a PostgreSQL connection URL or keyword/value
// string) and checks that the server answers.
func Open(ctx context.Context, url string) (*DB, error) {
	if url == "" {
		return nil, errors.New("no database: pass --db URL or set VX_PLATFORM_DB (e.g. postgres://vx@localhost:5432/vx)")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may quote the URL, password included: say less.
		return nil, errors.New("the database URL does not parse; use postgres://USER[:PASSWORD]@HOST:PORT/DBNAME or host=... dbname=... keywords")
	}
	cfg.MaxConnIdleTime = 5 * time.Minute
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to the database at %s:%d: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	return &DB{Pool: pool}, nil
}

// Close closes the pool.
func (db *DB) Close() { db.Pool.Close() }

// Migrate applies every embedded migration not yet applied and returns
// how many ran.
func (db *DB) Migrate(ctx context.Context) (int, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return 0, err
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return 0, fmt.Errorf("migrating: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(db.Pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub,
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return 0, fmt.Errorf("migrating: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrating the schema: %w", err)
	}
	return len(res), nil
}
