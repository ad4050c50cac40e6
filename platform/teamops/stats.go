package teamops

import (
	"github.com/vzn/vx/opkit"

	"context"
	"fmt"
	"time"

	"github.com/vzn/vx/platform/tokens"
)

// TrendsInput selects run_trends.
type TrendsInput struct {
	Scope
	Bucket opkit.Bucket `json:"bucket,omitempty" jsonschema:"bucket size (default hour)"`
	Limit  *opkit.Limit `json:"limit,omitempty" jsonschema:"buckets, 1..1000 (default 24), clamped"`
}

// Bucket is one hour or day (UTC) of activity. Executions and Hits are
// counted as wire.ExecutionsDefined says (runs.tasks: every task row of a
// run; runs.executions counts only the tasks that ran, list_runs' executed).
type Bucket struct {
	Start         time.Time `json:"start"`
	Runs          int       `json:"runs"`
	FailedRuns    int       `json:"failedRuns"`
	Executions    int       `json:"executions"`
	Hits          int       `json:"hits"`
	LocalHits     int       `json:"localHits"`
	RemoteHits    int       `json:"remoteHits"`
	P50DurationMs int64     `json:"p50DurationMs"`
}

// TrendsOutput answers run_trends, newest bucket first.
type TrendsOutput struct {
	Workspace WorkspaceRef `json:"workspace"`
	Bucket    string       `json:"bucket"`
	Limit     int          `json:"limit"`
	Note      string       `json:"note,omitempty"`
	Buckets   []Bucket     `json:"buckets"`
}

// RunTrends answers run_trends: runs, failures and hits per bucket, for
// the latest limit buckets that saw a run.
func (e *Env) RunTrends(ctx context.Context, p *tokens.Principal, in TrendsInput) (*TrendsOutput, error) {
	b := string(in.Bucket)
	if b == "" {
		b = "hour"
	}
	if b != "hour" && b != "day" {
		return nil, argErr("bucket", "%q is not a bucket (use \"hour\" or \"day\")", in.Bucket)
	}
	ws, err := e.workspace(ctx, p, in.Scope)
	if err != nil {
		return nil, err
	}
	limit, note := clamp(in.Limit, trendsDefault, 1, trendsMax)
	rows, err := e.Pool.Query(ctx, `SELECT date_trunc($3, started_at AT TIME ZONE 'UTC') AS b, count(*),
		count(*) FILTER (WHERE status = 'failed'), sum(tasks), sum(hits), sum(local_hits), sum(remote_hits),
		(percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms))::bigint
		FROM runs WHERE org_id = $1 AND workspace_id = $2 GROUP BY b ORDER BY b DESC LIMIT $4`, p.OrgID, ws.ID, b, limit)
	if err != nil {
		return nil, fmt.Errorf("reading trends: %w", err)
	}
	defer rows.Close()
	out := &TrendsOutput{Workspace: *ws, Bucket: b, Limit: limit, Note: note, Buckets: []Bucket{}}
	for rows.Next() {
		var k Bucket
		if err := rows.Scan(&k.Start, &k.Runs, &k.FailedRuns, &k.Executions, &k.Hits, &k.LocalHits, &k.RemoteHits, &k.P50DurationMs); err != nil {
			return nil, fmt.Errorf("reading trends: %w", err)
		}
		k.Start = time.Date(k.Start.Year(), k.Start.Month(), k.Start.Day(), k.Start.Hour(), 0, 0, 0, time.UTC)
		out.Buckets = append(out.Buckets, k)
	}
	return out, rows.Err()
}

// CacheStatsOutput answers cache_stats.
type CacheStatsOutput struct {
	Workspace WorkspaceRef `json:"workspace"`
	// Entries counts the distinct cache keys the workspace's runs wrote
	// (executed and passed, cache on); Bytes sums the sizes of those
	// entries that vx reported (EntriesSized of them).
	Entries       int64   `json:"entries"`
	EntriesSized  int64   `json:"entriesSized"`
	Bytes         int64   `json:"bytes"`
	Runs24h       int     `json:"runs24h"`
	Executions24h int     `json:"executions24h"`
	Hits24h       int     `json:"hits24h"`
	LocalHits24h  int     `json:"localHits24h"`
	RemoteHits24h int     `json:"remoteHits24h"`
	HitRate24h    float64 `json:"hitRate24h"`
	LocalHits     int64   `json:"localHits"`
	RemoteHits    int64   `json:"remoteHits"`
}

// CacheStats answers cache_stats: what the workspace's cache holds, the
// last 24 hours' hits, and hits split by where they came from.
func (e *Env) CacheStats(ctx context.Context, p *tokens.Principal, s Scope) (*CacheStatsOutput, error) {
	ws, err := e.workspace(ctx, p, s)
	if err != nil {
		return nil, err
	}
	out := &CacheStatsOutput{Workspace: *ws}
	err = e.Pool.QueryRow(ctx, `SELECT count(*), count(b), COALESCE(sum(b), 0)::bigint FROM (
		SELECT key, max(entry_bytes) AS b FROM executions
		WHERE org_id = $1 AND workspace_id = $2 AND cache = 'miss' AND status = 'passed' AND key <> '' GROUP BY key) k`,
		p.OrgID, ws.ID).Scan(&out.Entries, &out.EntriesSized, &out.Bytes)
	if err != nil {
		return nil, fmt.Errorf("reading cache entries: %w", err)
	}
	err = e.Pool.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE started_at > now() - interval '24 hours'),
		COALESCE(sum(tasks) FILTER (WHERE started_at > now() - interval '24 hours'), 0),
		COALESCE(sum(hits) FILTER (WHERE started_at > now() - interval '24 hours'), 0),
		COALESCE(sum(local_hits) FILTER (WHERE started_at > now() - interval '24 hours'), 0),
		COALESCE(sum(remote_hits) FILTER (WHERE started_at > now() - interval '24 hours'), 0),
		COALESCE(sum(local_hits), 0), COALESCE(sum(remote_hits), 0)
		FROM runs WHERE org_id = $1 AND workspace_id = $2`, p.OrgID, ws.ID).
		Scan(&out.Runs24h, &out.Executions24h, &out.Hits24h, &out.LocalHits24h, &out.RemoteHits24h, &out.LocalHits, &out.RemoteHits)
	if err != nil {
		return nil, fmt.Errorf("reading cache activity: %w", err)
	}
	if out.Executions24h > 0 {
		out.HitRate24h = float64(out.Hits24h) / float64(out.Executions24h)
	}
	return out, nil
}
