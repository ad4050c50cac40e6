package remotecache_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// A remote cache URL that is refused because it carries credentials, a
// query or no usable scheme is never quoted with them: not by vx cache
// status, vx info, vx run's warning, nor in .vx/.
func TestRefusedURLNeverShowsItsCredentials(t *testing.T) {
	urls := map[string]string{
		"userinfo":          "http://deploy:pw-sekrit-one@127.0.0.1:1",
		"token as user":     "https://tok-sekrit-two@cache.example.com",
		"query":             "http://127.0.0.1:1/?access_token=qs-sekrit-three",
		"fragment":          "http://127.0.0.1:1/#frag-sekrit-four",
		"other scheme":      "ftp://u:ftp-sekrit-five@files.example.com",
		"does not parse":    "http://u:parse-sekrit-six@[::1",
		"control character": "http://u:ctl-sekrit-seven@host/\x7f",
	}
	for name, u := range urls {
		t.Run(name, func(t *testing.T) {
			secret := u[strings.Index(u, "sekrit")-3 : strings.Index(u, "sekrit")+len("sekrit")+4]
			ws := clone(t)
			e := append(harness.Env("VX_REMOTE_CACHE_URL", "VX_REMOTE_CACHE_TOKEN", "TURBO_API", "TURBO_TOKEN"),
				"VX_REMOTE_CACHE_URL="+u, "VX_REMOTE_CACHE_TOKEN="+token, "VX_REMOTE_CACHE_TEAM=team_vxsuite")
			var said []string
			for _, args := range [][]string{{"cache", "status", "--format", "json"}, {"info"}, {"info", "--format", "json"}, {"run", "build"}} {
				res := vx(t, ws, e, args...)
				said = append(said, res.Stdout+res.Stderr)
				if strings.Contains(res.Stdout+res.Stderr, secret) {
					t.Errorf("vx %s quotes %q:\n%s", strings.Join(args, " "), secret, res)
				}
			}
			if !strings.Contains(strings.Join(said, ""), "remote") {
				t.Fatalf("no command said anything about the remote:\n%s", strings.Join(said, "\n"))
			}
			grepTree(t, filepath.Join(ws, ".vx"), secret)
		})
	}
}
