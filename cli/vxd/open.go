package vxd

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/internal/privfile"
	"github.com/vzn/vx/protocol/layout"
)

// openFlags are vxd open's flags.
type openFlags struct {
	rootFlag
	Print bool `flag:"print" help:"only print the link, never open a browser"`
}

var openBinding = cmdline.Bind(reflect.TypeFor[openFlags]())

// openVerb prints the status page's login link (the one `vx approve
// --page` prints: one way to log in) and, on a terminal with a browser,
// opens it. The browser is handed a private redirect file, never the link
// itself: a command line is readable by every local user.
func openVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	var f openFlags
	root, err := command(s, cmdline.Verb{Name: "open", Synopsis: "open [--print] [flags]", Bind: openBinding}, argv, &f)
	if root == "" {
		return err
	}
	c := &client.Client{Root: root}
	link, err := c.ApproverPage(ctx)
	if err != nil {
		if client.IsNotRunning(err) {
			return fmt.Errorf("vxd is not running for %s: `vxd start` starts it, then `vxd open`", root)
		}
		return err
	}
	fmt.Fprintf(s.Out, "%s\n(the status page's login link; it carries the approval key: keep it to yourself)\n", link)
	if f.Print || !isTerminal(s.Out) || !browserAvailable(s.Environ) {
		return nil
	}
	page, err := writeRedirect(root, link)
	if err == nil {
		err = openBrowser(page)
	}
	if err != nil {
		fmt.Fprintf(s.Err, "vxd open: could not open a browser (%v): open the link above\n", err)
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeRedirect writes a page that sends the browser on to link. The link
// carries the approval key, which vx keeps out of the workspace (an
// agent's file tools may cover it): the page goes beside the key, in a
// directory of this user's only, written whole (a temp file renamed, so a
// symlink planted at its name is replaced, never followed) and readable
// by this user only; a later vxd open replaces it, and the key it holds
// dies with the daemon.
func writeRedirect(root, link string) (string, error) {
	key := layout.ApproveKey(root)
	dir := filepath.Dir(key)
	path := strings.TrimSuffix(key, ".key") + ".open.html"
	body := fmt.Sprintf("<!doctype html><meta charset=\"utf-8\">"+
		"<meta http-equiv=\"refresh\" content=\"0;url=%s\"><title>vxd</title>"+
		"<a href=\"%[1]s\">open vxd's status page</a>\n", html.EscapeString(link))
	if err := privfile.PrivateDir(dir); err != nil {
		return "", err
	}
	return path, hashing.WriteFileAtomic(path, []byte(body), 0o600)
}
