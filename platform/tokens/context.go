package tokens

import "context"

type principalKey struct{}

// WithPrincipal carries the authenticated principal to the operations.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the request's principal, or nil.
func From(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
