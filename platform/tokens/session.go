package tokens

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SessionTTL is how long a dashboard session lasts.
const SessionTTL = 12 * time.Hour

// sessionPrefix marks a session credential; it is never a token.
const sessionPrefix = "vxs_"

// NewSession mints a dashboard session for the principal's token and
// returns the credential (for a cookie); only its hash is stored.
func NewSession(ctx context.Context, pool *pgxpool.Pool, p *Principal) (string, error) {
	secret := newSecret(sessionPrefix)
	_, err := pool.Exec(ctx, `INSERT INTO sessions (hash, token_id, expires_at) VALUES ($1, $2, $3)`,
		Hash(secret), p.TokenID, time.Now().Add(SessionTTL))
	if err != nil {
		return "", fmt.Errorf("storing the session: %w", err)
	}
	// Expired sessions go as new ones come.
	_, _ = pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at < now()`)
	return secret, nil
}

// Session resolves a session credential to the principal of its token,
// which must still be live.
func Session(ctx context.Context, pool *pgxpool.Pool, credential string) (*Principal, error) {
	if len(credential) != len(sessionPrefix)+43 || credential[:len(sessionPrefix)] != sessionPrefix {
		return nil, ErrUnauthenticated
	}
	p := &Principal{}
	err := pool.QueryRow(ctx, `SELECT t.id, t.org_id, o.name, t.scope, COALESCE(t.workspace_slug, '')
		FROM sessions s JOIN tokens t ON t.id = s.token_id JOIN orgs o ON o.id = t.org_id
		WHERE s.hash = $1 AND s.expires_at > now() AND t.revoked_at IS NULL`, Hash(credential)).
		Scan(&p.TokenID, &p.OrgID, &p.Org, &p.Scope, &p.Workspace)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrUnauthenticated
	}
	if err != nil {
		return nil, fmt.Errorf("checking the session: %w", err)
	}
	return p, nil
}

// EndSession deletes a session (logout).
func EndSession(ctx context.Context, pool *pgxpool.Pool, credential string) error {
	_, err := pool.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, Hash(credential))
	return err
}
