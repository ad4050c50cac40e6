package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestFlagRefusals: vx-platform's command line is refused before any
// database is opened (exit 2, naming what is wrong), and --help prints the
// verb's usage (exit 0), through the binder vx and vxd use.
func TestFlagRefusals(t *testing.T) {
	t.Setenv("VX_PLATFORM_DB", "postgres://127.0.0.1:1/nothing")
	for _, tc := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"serve", "--bogus"}, 2, "unknown flag --bogus"},
		{[]string{"serve", "--log-level", "loud"}, 2, `--log-level "loud" is not debug, info, warn or error`},
		{[]string{"serve", "extra"}, 2, "vx-platform serve: want no arguments"},
		{[]string{"token", "create", "--scope", "admin"}, 2, "token create: --org NAME is required"},
		{[]string{"token", "create", "--org"}, 2, "--org needs a value (NAME)"},
		{[]string{"token", "list"}, 2, "token list: --org NAME is required"},
		{[]string{"token", "revoke"}, 2, "want one token ID"},
		{[]string{"org", "create", "a", "b"}, 2, "want one org NAME"},
		{[]string{"token", "create", "--help"}, 0, "--scope read|ingest|admin"},
		{[]string{"serve", "-h"}, 0, "--listen ADDR"},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(context.Background(), tc.argv, &out, &errb)
			if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.want) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tc.code, tc.want, out.String(), errb.String())
			}
		})
	}
}
