-- +goose Up
-- Every row below carries org_id so that each read is clamped to the
-- caller's org inside the query itself.
CREATE TABLE orgs (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE workspaces (
    org_id       BIGINT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    id           TEXT NOT NULL PRIMARY KEY,
    slug         TEXT NOT NULL,
    name         TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    run_count    BIGINT NOT NULL DEFAULT 0,
    UNIQUE (org_id, slug)
);
CREATE INDEX workspaces_seen ON workspaces(org_id, last_seen_at DESC);

CREATE TABLE tokens (
    id             TEXT NOT NULL PRIMARY KEY,
    org_id         BIGINT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    workspace_slug TEXT,
    scope          TEXT NOT NULL CHECK (scope IN ('read', 'ingest', 'admin')),
    name           TEXT NOT NULL,
    hash           BYTEA NOT NULL UNIQUE,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at     TIMESTAMPTZ
);
CREATE INDEX tokens_org ON tokens(org_id, created_at);

-- Dashboard sessions: a credential of its own, minted at login, stored
-- hashed so that every replica accepts it; it dies with its token.
CREATE TABLE sessions (
    hash       BYTEA NOT NULL PRIMARY KEY,
    token_id   TEXT NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE runs (
    org_id       BIGINT NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    id           TEXT NOT NULL,
    command      TEXT NOT NULL,
    git_branch   TEXT NOT NULL,
    git_commit   TEXT NOT NULL,
    ci           BOOLEAN NOT NULL,
    started_at   TIMESTAMPTZ NOT NULL,
    ended_at     TIMESTAMPTZ,
    exit_code    INTEGER,
    status       TEXT NOT NULL,
    duration_ms  BIGINT NOT NULL,
    tasks        INTEGER NOT NULL,
    passed       INTEGER NOT NULL,
    failed       INTEGER NOT NULL,
    cached       INTEGER NOT NULL,
    blocked      INTEGER NOT NULL,
    timed_out    INTEGER NOT NULL,
    interrupted  INTEGER NOT NULL,
    skipped      INTEGER NOT NULL,
    executions   INTEGER NOT NULL,
    hits         INTEGER NOT NULL,
    local_hits   INTEGER NOT NULL,
    remote_hits  INTEGER NOT NULL,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id)
);
CREATE INDEX runs_started ON runs(org_id, workspace_id, started_at DESC, id DESC);

CREATE TABLE executions (
    org_id          BIGINT NOT NULL,
    workspace_id    TEXT NOT NULL,
    run_id          TEXT NOT NULL,
    run_started_at  TIMESTAMPTZ NOT NULL,
    task_id         TEXT NOT NULL,
    project         TEXT NOT NULL,
    task            TEXT NOT NULL,
    key             TEXT NOT NULL,
    status          TEXT NOT NULL,
    cache           TEXT NOT NULL,
    cache_source    TEXT NOT NULL,
    exit_code       INTEGER,
    started_at      TIMESTAMPTZ,
    duration_ms     BIGINT NOT NULL,
    peak_rss_bytes  BIGINT NOT NULL,
    cpu_parallelism DOUBLE PRECISION NOT NULL,
    reason          TEXT NOT NULL,
    blocked_by      TEXT[] NOT NULL,
    timed_out       BOOLEAN NOT NULL,
    entry_bytes     BIGINT,
    PRIMARY KEY (workspace_id, run_id, task_id),
    FOREIGN KEY (workspace_id, run_id) REFERENCES runs(workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX executions_task ON executions(org_id, workspace_id, task_id, run_started_at DESC);
-- The entries a workspace's runs wrote, for cache_stats.
CREATE INDEX executions_written ON executions(org_id, workspace_id, key) INCLUDE (entry_bytes)
    WHERE cache = 'miss' AND status = 'passed' AND key <> '';

-- Key components per (workspace, key), masked by vx before they left the
-- machine, so that why_did_rerun diffs in the database.
CREATE TABLE components (
    org_id       BIGINT NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    body         JSONB NOT NULL,
    PRIMARY KEY (workspace_id, key)
);

-- +goose Down
DROP TABLE components;
DROP TABLE executions;
DROP TABLE runs;
DROP TABLE sessions;
DROP TABLE tokens;
DROP TABLE workspaces;
DROP TABLE orgs;
