// Package history is vx's run history: every run and every task execution,
// kept in ROOT/.vx/vx.db (SQLite in WAL mode).
//
// The engine writes it through a Store from Open; the CLI verbs and the
// daemon's read-only tools read it through a Store from OpenReadOnly, which
// never creates, migrates or prunes anything. Two vx processes may write the
// same workspace at once: every write is one BEGIN IMMEDIATE transaction and
// a busy database waits (busy timeout) rather than fails.
//
// Schema versions live in SQLite's user_version. Open (for writing) migrates a
// database of an older version step by step where a migration exists;
// otherwise (a newer vx's database, an older one without a migration path, or
// a foreign file) it resets the history: every table is dropped and created
// again in one transaction, with a warning logged naming both versions. The
// history is a record, not a source of truth, and a run must never fail
// because an older or newer vx wrote it. OpenReadOnly refuses such a file
// with a *versionError and leaves it for the next vx run.
package history

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rs/zerolog"
)

// SchemaVersion is the layout this vx reads and writes, stored in the
// database's user_version.
const SchemaVersion = 9

// Limits applied by the list readers.
const (
	defaultLimit = 20  // rows when a caller asks for 0 or fewer
	MaxLimit     = 500 // rows at most; larger limits are clamped
	// percentileWindow is how many of a task's most recent executed runs
	// feed its p50/p99: recent durations predict the next run better than
	// all-time ones, and the window keeps the query bounded.
	percentileWindow = 200
)

// busyTimeoutMs is how long a statement waits on another process's write
// lock before giving up; runs hold it for milliseconds.
const busyTimeoutMs = 10000

// Run statuses.
const (
	RunRunning     = "running"
	RunPassed      = "passed"
	RunFailed      = "failed"
	RunInterrupted = "interrupted"
)

// Execution statuses and cache outcomes are the run summary's own.
const (
	StatusPassed      = wire.StatusPassed
	StatusFailed      = wire.StatusFailed
	StatusBlocked     = wire.StatusBlocked
	StatusTimedOut    = wire.StatusTimedOut
	statusInterrupted = wire.StatusInterrupted
	statusSkipped     = wire.StatusSkipped

	CacheHit  = wire.CacheHit
	CacheMiss = wire.CacheMiss
	CacheOff  = wire.CacheOff
)

// ErrNotFound is returned (wrapped) when a run, execution or components blob
// does not exist.
var ErrNotFound = errors.New("not found in run history")

// errReadOnly is returned by writes on a Store from OpenReadOnly.
var errReadOnly = errors.New("run history is open read-only")

// versionError refuses a history written by another vx version.
type versionError struct {
	Path  string // the database file
	Found int    // its schema version
	Want  int    // SchemaVersion
}

func (e *versionError) Error() string {
	return fmt.Sprintf("run history %s was written by another vx version (schema %d, this vx reads schema %d); the next vx run will migrate it",
		e.Path, e.Found, e.Want)
}

// AmbiguousError is returned by ResolveRun when a prefix matches several runs.
type AmbiguousError struct {
	Prefix  string
	Matches []string // matching run ids, ascending, at most maxMatches
}

const maxMatches = 10

func (e *AmbiguousError) Error() string {
	more := ""
	if len(e.Matches) >= maxMatches {
		more = ", …"
	}
	return fmt.Sprintf("run id prefix %q matches several runs (%s%s); give more characters",
		e.Prefix, strings.Join(e.Matches, ", "), more)
}

// Run is one invocation of vx run.
type Run struct {
	ID         string     `json:"id"`      // 12 lowercase hex, random
	Seq        int64      `json:"seq"`     // monotonic insert order
	Command    string     `json:"command"` // the command line, masked
	Args       []string   `json:"args"`
	StartedAt  time.Time  `json:"startedAt"`
	EndedAt    *time.Time `json:"endedAt"`
	Status     string     `json:"status"` // running|passed|failed|interrupted
	ExitCode   *int       `json:"exitCode"`
	GitBranch  string     `json:"gitBranch"`
	GitCommit  string     `json:"gitCommit"`
	CI         bool       `json:"ci"`
	Tasks      int        `json:"tasks"`
	Failed     int        `json:"failed"`
	Cached     int        `json:"cached"`
	DurationMs int64      `json:"durationMs"`
	// PID and ProcStart name the vx process recording the run (its start
	// time as the OS keeps it: see ProcStart), so that a run
	// whose process died without finishing it reads as interrupted. 0 is
	// unknown; BeginRun fills in the calling process.
	PID       int   `json:"-"`
	ProcStart int64 `json:"-"`
}

// Execution is one task of a run, as the engine finished it.
type Execution struct {
	RunID          string    `json:"runId"`
	TaskID         string    `json:"taskId"` // project#task
	Project        string    `json:"project"`
	Task           string    `json:"task"`
	Key            string    `json:"key"`    // cache key; empty when none was computed
	Status         string    `json:"status"` // passed|failed|blocked|timedOut|interrupted|skipped
	Cache          string    `json:"cache"`  // hit|miss|off
	CacheSource    string    `json:"cacheSource,omitempty"`
	ExitCode       *int      `json:"exitCode"`
	StartedAt      time.Time `json:"startedAt"`
	DurationMs     int64     `json:"durationMs"`
	PeakRSSBytes   int64     `json:"peakRssBytes,omitempty"` // the task's own peak; 0 (absent) when none was measured
	CPUParallelism float64   `json:"cpuParallelism"`
	BlockedBy      []string  `json:"blockedBy,omitempty"`
	TimedOut       bool      `json:"timedOut"`
	Reason         string    `json:"reason,omitempty"`
	// Output is kept for failures only, already excerpted and masked. It is
	// not marshalled: as []byte it would be base64, which helps no reader;
	// adapters render it as text.
	Output          []byte `json:"-"`
	OutputTruncated bool   `json:"outputTruncated"`
	// SandboxViolations are what a sandboxed task did outside its
	// declaration, masked.
	SandboxViolations []wire.SandboxViolation `json:"sandboxViolations,omitempty"`
}

// ExecRow is an execution with its run's place in history.
type ExecRow struct {
	Execution
	RunStartedAt time.Time `json:"runStartedAt"`
	RunSeq       int64     `json:"runSeq"`
}

// Filter narrows RecentExecutions and TaskStats.
type Filter struct {
	Project string // a project name
	Task    string // a task name (not project#task)
	// TaskIDs, when set, narrows TaskStats to those task ids.
	TaskIDs []string
	// Limit caps the rows: RecentExecutions uses DefaultLimit for 0 or
	// fewer and clamps to MaxLimit; TaskStats returns every task for 0.
	Limit int
}

// TaskStat summarises every recorded execution of one task.
type TaskStat struct {
	TaskID  string `json:"taskId"`
	Project string `json:"project"`
	Task    string `json:"task"`
	Count   int    `json:"count"` // executions recorded, any status
	// Executed counts executions that actually ran the command: not a cache
	// hit, and passed, failed or timed out.
	Executed int `json:"executed"`
	// P50Ms and P99Ms are nearest-rank percentiles over the most recent
	// percentileWindow executed runs.
	P50Ms int64 `json:"p50Ms"`
	P99Ms int64 `json:"p99Ms"`
	// Attempts is passed+failed+timedOut; SuccessRate is passed/Attempts
	// (0 when Attempts is 0).
	Attempts    int     `json:"attempts"`
	SuccessRate float64 `json:"successRate"`
	// Cacheable counts executions with cache != off; HitRate is
	// Hits/Cacheable (0 when Cacheable is 0).
	Cacheable int     `json:"cacheable"`
	Hits      int     `json:"hits"`
	HitRate   float64 `json:"hitRate"`
	// FailureMode is the most common status among failed, timedOut, blocked
	// and interrupted, with its count; "" when the task never failed.
	FailureMode  string `json:"failureMode"`
	FailureCount int    `json:"failureCount"`
	// Flaky is true only when one and the same cache key produced both a
	// pass and a failure (or time-out); FlakyKeys counts such keys.
	Flaky             bool    `json:"flaky"`
	FlakyKeys         int     `json:"flakyKeys"`
	MaxPeakRSSBytes   int64   `json:"maxPeakRssBytes,omitempty"`
	MaxCPUParallelism float64 `json:"maxCpuParallelism"`
	LastStatus        string  `json:"lastStatus"`
	LastRunID         string  `json:"lastRunId"`
}

// Bucket is one hour or day of Trends.
type Bucket struct {
	Start         time.Time `json:"start"`
	Runs          int       `json:"runs"`
	FailedRuns    int       `json:"failedRuns"`
	Executions    int       `json:"executions"` // every task outcome recorded (ops.ExecutionsDefined)
	Hits          int       `json:"hits"`
	P50DurationMs int64     `json:"p50DurationMs"` // of the bucket's finished runs
}

// Options configures Open and OpenReadOnly; nil means defaults.
type Options struct {
	Logger zerolog.Logger // default: zerolog.Nop()
}

// Store is an open run history. Its methods are safe for concurrent use.
type Store struct {
	path     string
	readOnly bool
	log      zerolog.Logger
	enc      *zstd.Encoder
	dec      *zstd.Decoder

	w *sql.DB // the one writer connection; nil when read-only

	mu sync.Mutex
	r  *sql.DB // reader pool; nil while a read-only store has no database

	movedAside *MovedAside // what Open moved aside, if anything (corrupt.go)

	setsMu sync.Mutex
	sets   map[int64]*decodedSet // hit sets decoded (hitset.go)

	keepWAL bool // the schema was current at open: Close leaves the WAL to the next open (checkpoint.go)
}

// Path is where a workspace keeps its history.
func Path(root string) string { return layout.History(root) }

// NewRunID returns a random run id: 12 lowercase hex digits.
func NewRunID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// dsn is SQLite's URI of the database at path with params. A path with a
// drive letter (C:\x\vx.db) is written file:///C:/x/vx.db, as SQLite reads
// it: without the leading slash the drive would be the URI's authority.
func dsn(path, params string) string {
	p := filepath.ToSlash(path)
	if filepath.VolumeName(path) != "" {
		p = "/" + p
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String() + "?" + params
}

func newStore(path string, readOnly bool, opts *Options) (*Store, error) {
	s := &Store{path: path, readOnly: readOnly, log: zerolog.Nop()}
	if opts != nil {
		s.log = opts.Logger
	}
	var err error
	if s.enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1)); err != nil {
		return nil, err
	}
	if s.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0)); err != nil {
		return nil, err
	}
	return s, nil
}

// Open opens the history at path for writing, creating it (and its
// directory) when missing and migrating or resetting a database of another
// schema version (see the package comment). The engine opens one Store per
// process: it holds a single writer connection.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	return openRecovering(ctx, path, opts)
}

func openWriter(ctx context.Context, path string, opts *Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening run history %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("opening run history: %w", err)
	}
	s, err := newStore(abs, false, opts)
	if err != nil {
		return nil, fmt.Errorf("opening run history: %w", err)
	}
	w := openDB(dsn(abs, fmt.Sprintf(
		"_busy_timeout=%d&_txlock=immediate&_journal_mode=WAL&_synchronous=NORMAL&_stmt_cache_size=32", busyTimeoutMs)))
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s.w = w
	if err := s.prepareSchemaRetrying(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("opening run history %s: %w", abs, err)
	}
	if s.r, err = openReader(abs); err != nil {
		s.Close()
		return nil, fmt.Errorf("opening run history %s: %w", abs, err)
	}
	if s.keepWAL {
		if err := s.settleWAL(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("opening run history %s: %w", abs, err)
		}
	}
	return s, nil
}

// OpenReadOnly opens the history at path for reading. A missing file is not
// an error: the store answers empty results and creates nothing on disk
// until a vx run creates the database, which later reads then see. A
// database of another schema version is refused with a *versionError.
func OpenReadOnly(ctx context.Context, path string, opts *Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening run history %s: %w", path, err)
	}
	s, err := newStore(abs, true, opts)
	if err != nil {
		return nil, fmt.Errorf("opening run history: %w", err)
	}
	if _, err := s.reader(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// mmapSize lets SQLite read the database through the OS page cache by
// mmap rather than a read(2) per page.
const mmapSize = 256 << 20

// SQLite's primary result codes (sqlite.org/rescode.html) that history
// tells apart; sqliteCode answers them.
const (
	codeBusy       = 5
	codeLocked     = 6
	codeCorrupt    = 11
	codeConstraint = 19
	codeNotADB     = 26
)

func openReader(path string) (*sql.DB, error) {
	db := openDB(dsn(path, fmt.Sprintf("mode=ro&_busy_timeout=%d&_stmt_cache_size=64&_cache_size=-4096", busyTimeoutMs)))
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(4)
	return db, nil
}

// reader returns the reader pool, or nil when a read-only store has no
// database yet (every read then answers empty). It opens the pool lazily so
// that a daemon started before the first run sees that run.
func (s *Store) reader(ctx context.Context) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r != nil || !s.readOnly {
		return s.r, nil
	}
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("opening run history: %w", err)
	}
	db, err := openReader(s.path)
	if err != nil {
		return nil, fmt.Errorf("opening run history %s: %w", s.path, err)
	}
	v, tables, err := schemaState(ctx, db)
	if err != nil {
		db.Close()
		if isCorrupt(s.path, err) {
			return nil, &corruptError{Path: s.path, Err: err}
		}
		return nil, fmt.Errorf("opening run history %s: %w", s.path, err)
	}
	if v == 0 && tables == 0 {
		// An empty file: a writer is creating it right now, or it is not
		// ours yet. Answer empty and look again on the next read.
		db.Close()
		return nil, nil
	}
	if v != SchemaVersion {
		db.Close()
		return nil, &versionError{Path: s.path, Found: v, Want: SchemaVersion}
	}
	s.r = db
	return db, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func schemaState(ctx context.Context, q querier) (version, tables int, err error) {
	if err = q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, 0, fmt.Errorf("reading schema version: %w", err)
	}
	err = q.QueryRowContext(ctx,
		"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").Scan(&tables)
	if err != nil {
		return 0, 0, fmt.Errorf("reading schema: %w", err)
	}
	return version, tables, nil
}

// Close releases the store's connections.
func (s *Store) Close() error {
	var errs []error
	if s.w != nil {
		var held *sql.Conn
		if s.keepWAL {
			held = s.holdSnapshot(context.Background())
		} else {
			// The writer checkpoints only as the last connection to
			// close: the readers (idle ones too) go first.
			s.mu.Lock()
			if s.r != nil {
				errs = append(errs, s.r.Close())
				s.r = nil
			}
			s.mu.Unlock()
		}
		errs = append(errs, s.w.Close())
		if held != nil {
			held.Close()
		}
	}
	s.mu.Lock()
	if s.r != nil {
		errs = append(errs, s.r.Close())
		s.r = nil
	}
	s.mu.Unlock()
	if s.enc != nil {
		errs = append(errs, s.enc.Close())
	}
	if s.dec != nil {
		s.dec.Close()
	}
	return errors.Join(errs...)
}

// prepareSchemaRetrying retries prepareSchema while the database is busy.
// Two processes opening a new history at once can meet SQLITE_BUSY without
// the busy handler being consulted: while one switches the file to WAL, or
// when rollback-journal locks would deadlock. Either clears in milliseconds.
func (s *Store) prepareSchemaRetrying(ctx context.Context) error {
	deadline := time.Now().Add(busyTimeoutMs * time.Millisecond)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := s.prepareSchema(ctx)
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

func isBusy(err error) bool {
	code, _ := sqliteCode(err)
	return code == codeBusy || code == codeLocked
}

// isConstraint reports a primary key or unique violation.
func isConstraint(err error) bool {
	code, _ := sqliteCode(err)
	return code == codeConstraint
}
