package vxd

import (
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
)

// TestOpenPrintsALinkThatLogsIn: off a terminal, vxd open prints the
// page's login link and opens nothing (no redirect file is written); the
// link logs a client in to the page. With no daemon it says how to start
// one.
func TestOpenPrintsALinkThatLogsIn(t *testing.T) {
	root := serveWorkspace(t)
	code, out, errs := runVXD("open", "--root", root)
	link, _, _ := strings.Cut(out, "\n")
	if code != 0 || !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.Contains(out, "keep it to yourself") {
		t.Fatalf("vxd open: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(strings.TrimSuffix(layout.ApproveKey(root), ".key") + ".open.html"); !os.IsNotExist(err) {
		t.Fatalf("vxd open off a terminal wrote the redirect file: %v", err)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/" || resp.Request.URL.RawQuery != "" {
		t.Fatalf("opening the link: %d at %s, want the page at its clean address", resp.StatusCode, resp.Request.URL)
	}

	none := t.TempDir()
	testtree.Write(t, none, map[string]string{"vx.workspace.json": `{"projects": []}`})
	code, out, errs = runVXD("open", "--root", none)
	if code == 0 || out != "" || !strings.Contains(errs, "vxd start") {
		t.Fatalf("vxd open with no daemon: exit %d, stdout %q, stderr %q; want a refusal naming vxd start", code, out, errs)
	}
}
