// Package tokens is the platform's accounts: orgs, vxc_ API tokens and
// dashboard sessions. A token is shown once when minted and stored only as
// its SHA-256 hash; every request looks its hash up in the database, so a
// revocation is seen by every replica at once (nothing is cached).
package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/vzn/vx/protocol/wire"
)

// secretBytes is the randomness of a token or session credential.
const secretBytes = 32

// ErrUnauthenticated is a missing, unknown, malformed or revoked credential.
var ErrUnauthenticated = errors.New("the token is missing, unknown or revoked")

// Principal is who a request acts as.
type Principal struct {
	TokenID string
	OrgID   int64
	Org     string
	Scope   string
	// Workspace is the slug a workspace-scoped token is pinned to; "" for
	// an org-wide token.
	Workspace string
}

// Allows reports whether the principal's scope covers need.
func (p *Principal) Allows(need string) bool {
	return p.Scope == need || p.Scope == wire.ScopeAdmin
}

// Token is a token's record, without its secret.
type Token struct {
	ID        string     `json:"id"`
	Org       string     `json:"org"`
	Workspace string     `json:"workspace,omitempty"`
	Scope     string     `json:"scope"`
	Name      string     `json:"name"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newSecret returns prefix + 32 random bytes in base62.
func newSecret(prefix string) string {
	var b [secretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	n := new(big.Int).SetBytes(b[:])
	// 32 bytes need at most 43 base62 digits; pad so the length is fixed.
	out := make([]byte, 43)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := len(out) - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62[mod.Int64()]
	}
	return prefix + string(out)
}

// Hash is the stored form of a secret.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

var (
	orgName   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)
	tokenForm = regexp.MustCompile(`^vxc_[0-9A-Za-z]{43}$`)
	// workspaceID is the form of a workspace id (see ingest): no slug may
	// take it, or a slug could shadow another workspace's id wherever a
	// workspace argument takes either.
	workspaceID = regexp.MustCompile(`^ws_[0-9a-f]{12}$`)
)

// CheckSlug refuses a workspace slug that is not one.
func CheckSlug(s string) error {
	if !wire.ValidSlug(s) {
		return fmt.Errorf("workspace slug %q is not valid: use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit", s)
	}
	if workspaceID.MatchString(s) {
		return fmt.Errorf("workspace slug %q has the form of a workspace id (ws_ and 12 hex digits); choose another slug", s)
	}
	return nil
}

// CreateOrg adds an org.
func CreateOrg(ctx context.Context, pool *pgxpool.Pool, name string) error {
	if !orgName.MatchString(name) {
		return fmt.Errorf("org name %q is not valid: use 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	_, err := pool.Exec(ctx, `INSERT INTO orgs (name) VALUES ($1)`, name)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return fmt.Errorf("org %q already exists", name)
	}
	if err != nil {
		return fmt.Errorf("creating org %s: %w", name, err)
	}
	return nil
}

func orgID(ctx context.Context, pool *pgxpool.Pool, name string) (int64, error) {
	var id int64
	err := pool.QueryRow(ctx, `SELECT id FROM orgs WHERE name = $1`, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("no org %q; create it with vx-platform org create %s", name, name)
	}
	if err != nil {
		return 0, fmt.Errorf("reading org %s: %w", name, err)
	}
	return id, nil
}

// CreateInput says what token to mint.
type CreateInput struct {
	Org       string
	Workspace string // slug; "" for an org-wide token
	Scope     string // read (default), ingest or admin
	Name      string
}

// Create mints a token and returns its record and its secret, which
// exists nowhere else afterwards.
func Create(ctx context.Context, pool *pgxpool.Pool, in CreateInput) (*Token, string, error) {
	if in.Scope == "" {
		in.Scope = wire.ScopeRead
	}
	switch in.Scope {
	case wire.ScopeRead, wire.ScopeIngest, wire.ScopeAdmin:
	default:
		return nil, "", fmt.Errorf("scope %q is not one of read, ingest, admin", in.Scope)
	}
	if in.Workspace != "" {
		if err := CheckSlug(in.Workspace); err != nil {
			return nil, "", err
		}
	}
	if len(in.Name) > 200 {
		return nil, "", fmt.Errorf("token name is %d bytes long; keep it under 200", len(in.Name))
	}
	org, err := orgID(ctx, pool, in.Org)
	if err != nil {
		return nil, "", err
	}
	secret := newSecret(wire.PlatformTokenPrefix)
	var idb [8]byte
	_, _ = rand.Read(idb[:])
	t := &Token{ID: "tok_" + hex.EncodeToString(idb[:]), Org: in.Org, Workspace: in.Workspace, Scope: in.Scope, Name: in.Name}
	err = pool.QueryRow(ctx, `INSERT INTO tokens (id, org_id, workspace_slug, scope, name, hash) VALUES ($1, $2, NULLIF($3, ''), $4, $5, $6) RETURNING created_at`,
		t.ID, org, in.Workspace, in.Scope, in.Name, Hash(secret)).Scan(&t.CreatedAt)
	if err != nil {
		return nil, "", fmt.Errorf("storing the token: %w", err)
	}
	return t, secret, nil
}

// List returns the org's tokens, oldest first.
func List(ctx context.Context, pool *pgxpool.Pool, org string) ([]Token, error) {
	id, err := orgID(ctx, pool, org)
	if err != nil {
		return nil, err
	}
	return listByID(ctx, pool, id, org)
}

// listByID is List for a known org id.
func listByID(ctx context.Context, pool *pgxpool.Pool, orgID int64, org string) ([]Token, error) {
	return listIn(ctx, pool, orgID, org, "")
}

// ListFor lists the tokens principal p may manage: its org's, and of a
// token pinned to a workspace, only those pinned to the same workspace.
func ListFor(ctx context.Context, pool *pgxpool.Pool, p *Principal) ([]Token, error) {
	return listIn(ctx, pool, p.OrgID, p.Org, p.Workspace)
}

func listIn(ctx context.Context, pool *pgxpool.Pool, orgID int64, org, workspace string) ([]Token, error) {
	rows, err := pool.Query(ctx, `SELECT id, COALESCE(workspace_slug, ''), scope, name, created_at, revoked_at FROM tokens
		WHERE org_id = $1 AND ($2 = '' OR workspace_slug = $2) ORDER BY created_at, id`, orgID, workspace)
	if err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	out := []Token{}
	for rows.Next() {
		t := Token{Org: org}
		if err := rows.Scan(&t.ID, &t.Workspace, &t.Scope, &t.Name, &t.CreatedAt, &t.RevokedAt); err != nil {
			return nil, fmt.Errorf("listing tokens: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Revoke revokes a token by id. orgID > 0 limits it to that org's tokens
// (the dashboard); 0 is the operator's command line.
func Revoke(ctx context.Context, pool *pgxpool.Pool, id string, orgID int64) error {
	return revokeIn(ctx, pool, id, orgID, "")
}

// RevokeFor revokes a token principal p may manage (see ListFor); any
// other id is "no token", whoever holds it.
func RevokeFor(ctx context.Context, pool *pgxpool.Pool, id string, p *Principal) error {
	return revokeIn(ctx, pool, id, p.OrgID, p.Workspace)
}

func revokeIn(ctx context.Context, pool *pgxpool.Pool, id string, orgID int64, workspace string) error {
	tag, err := pool.Exec(ctx, `UPDATE tokens SET revoked_at = COALESCE(revoked_at, now())
		WHERE id = $1 AND ($2 = 0 OR org_id = $2) AND ($3 = '' OR workspace_slug = $3)`, id, orgID, workspace)
	if err != nil {
		return fmt.Errorf("revoking token %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("no token %q; vx-platform token list --org NAME lists the ids", id)
	}
	// Sessions minted from it die with it.
	_, err = pool.Exec(ctx, `DELETE FROM sessions WHERE token_id = $1`, id)
	return err
}

// Authenticate resolves a bearer token. Anything but a live token is
// ErrUnauthenticated; the token itself never appears in an error.
func Authenticate(ctx context.Context, pool *pgxpool.Pool, token string) (*Principal, error) {
	token = strings.TrimSpace(token)
	if !tokenForm.MatchString(token) {
		return nil, ErrUnauthenticated
	}
	p := &Principal{}
	err := pool.QueryRow(ctx, `SELECT t.id, t.org_id, o.name, t.scope, COALESCE(t.workspace_slug, '')
		FROM tokens t JOIN orgs o ON o.id = t.org_id WHERE t.hash = $1 AND t.revoked_at IS NULL`, Hash(token)).
		Scan(&p.TokenID, &p.OrgID, &p.Org, &p.Scope, &p.Workspace)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrUnauthenticated
	}
	if err != nil {
		return nil, fmt.Errorf("checking the token: %w", err)
	}
	return p, nil
}
