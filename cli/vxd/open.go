package vxd

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"reflect"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
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

// writeRedirect writes a page that sends the browser on to link, readable
// by this user only, in the daemon's directory (which holds the key
// anyway); a later vxd open replaces it.
func writeRedirect(root, link string) (string, error) {
	path := filepath.Join(layout.Daemon(root), "open.html")
	body := fmt.Sprintf("<!doctype html><meta charset=\"utf-8\">"+
		"<meta http-equiv=\"refresh\" content=\"0;url=%s\"><title>vxd</title>"+
		"<a href=\"%[1]s\">open vxd's status page</a>\n", html.EscapeString(link))
	if err := privfile.OwnDir(layout.Daemon(root)); err != nil {
		return "", err
	}
	f, err := privfile.Open(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}
