//go:build !windows

package platform_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vzn/vx/platform/store"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/pgtest"
)

func openDB(t *testing.T) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestMigrateTwiceAppliesOnce(t *testing.T) {
	db := openDB(t)
	n, err := db.Migrate(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("second migrate: %d applied, %v; want 0, nil", n, err)
	}
}

func TestTokensHashedAndRevocable(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if err := tokens.CreateOrg(ctx, db.Pool, "acme"); err != nil {
		t.Fatal(err)
	}
	if err := tokens.CreateOrg(ctx, db.Pool, "acme"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second create: %v", err)
	}
	tok, secret, err := tokens.Create(ctx, db.Pool, tokens.CreateInput{Org: "acme", Scope: wire.ScopeIngest, Name: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "vxc_") || len(secret) != 4+43 {
		t.Fatalf("secret %q: want vxc_ and 43 base62 digits", secret)
	}
	var stored int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM tokens WHERE hash = $1 AND position($2 in name) = 0`, tokens.Hash(secret), secret).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("token stored by hash: %d, %v", stored, err)
	}
	var clear int
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM tokens WHERE encode(hash, 'escape') LIKE '%' || $1 || '%'`, secret[4:]).Scan(&clear)
	if clear != 0 {
		t.Fatal("the token's text is in the database")
	}
	p, err := tokens.Authenticate(ctx, db.Pool, secret)
	if err != nil || p.Org != "acme" || p.Scope != wire.ScopeIngest || p.TokenID != tok.ID {
		t.Fatalf("authenticate: %+v, %v", p, err)
	}
	if _, err := tokens.Authenticate(ctx, db.Pool, otherLastDigit(secret)); err != tokens.ErrUnauthenticated {
		t.Fatalf("wrong token: %v", err)
	}
	if err := tokens.Revoke(ctx, db.Pool, tok.ID, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := tokens.Authenticate(ctx, db.Pool, secret); err != tokens.ErrUnauthenticated {
		t.Fatalf("revoked token: %v", err)
	}
	if _, _, err := tokens.Create(ctx, db.Pool, tokens.CreateInput{Org: "nope"}); err == nil || !strings.Contains(err.Error(), `no org "nope"`) {
		t.Fatalf("unknown org: %v", err)
	}
	if _, _, err := tokens.Create(ctx, db.Pool, tokens.CreateInput{Org: "acme", Scope: "write"}); err == nil || !strings.Contains(err.Error(), "write") {
		t.Fatalf("bad scope: %v", err)
	}
}

// otherLastDigit is secret with its last digit changed, so never secret
// itself (replacing it with a fixed "x" gave the same token whenever the
// secret already ended in x, about one run in 62).
func otherLastDigit(secret string) string {
	last := "x"
	if strings.HasSuffix(secret, "x") {
		last = "y"
	}
	return secret[:len(secret)-1] + last
}
