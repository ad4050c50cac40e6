package wire

// Environment variables that carry vx's own credentials: the remote
// cache's token and signature key (and Turborepo's names for them) and the
// team platform's token. Every masker hides their values.
var CredentialEnv = []string{
	"VX_REMOTE_CACHE_TOKEN", "TURBO_TOKEN",
	"VX_REMOTE_CACHE_SIGNATURE_KEY", "TURBO_REMOTE_CACHE_SIGNATURE_KEY",
	"VX_PLATFORM_TOKEN",
}
