//go:build !windows

package live_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

func logSize(root string) int64 {
	st, err := os.Stat(filepath.Join(root, ".vx", "daemon", "vxd.log"))
	if err != nil {
		return 0
	}
	return st.Size()
}

// TestRefusalFloodBoundsLog: refused requests cannot grow vxd.log without
// bound. A 900 KB Origin is refused at the header limit (431); Origins of
// 50 KB and requests without a token are refused (403, 401) with their
// values clipped and their lines rate-limited. Before, 40 requests with a
// 900 KB Origin grew the log by 34 MiB.
func TestRefusalFloodBoundsLog(t *testing.T) {
	t.Parallel()
	root := demo(t)
	d := startDaemon(t, root)
	before := logSize(root)
	send := func(origin string, token bool) int {
		req, _ := http.NewRequest(http.MethodPost, d.base()+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if token {
			req.Header.Set("Authorization", "Bearer "+d.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	huge := "http://" + strings.Repeat("a", 900<<10) + ".example"
	big := "http://" + strings.Repeat("b", 50<<10) + ".example"
	for i := range 40 {
		if code := send(huge, true); code != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("request %d with a 900 KB Origin: %d, want 431", i, code)
		}
		if code := send(big, true); code != http.StatusForbidden {
			t.Fatalf("request %d with a 50 KB Origin: %d, want 403", i, code)
		}
	}
	for i := range 200 {
		if code := send("", false); code != http.StatusUnauthorized {
			t.Fatalf("request %d without a token: %d, want 401", i, code)
		}
	}
	grew := logSize(root) - before
	t.Logf("vxd.log grew by %d bytes under 40 requests with a 900 KB Origin, 40 with a 50 KB Origin and 200 without a token", grew)
	if grew > 64<<10 {
		t.Errorf("vxd.log grew by %d bytes under a flood of refusals", grew)
	}
	b, _ := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.log"))
	if !strings.Contains(string(b), "bytes)") {
		t.Errorf("no refusal line quotes a clipped Origin:\n%.2000s", b)
	}
}

// closedWithin reports whether the daemon closes c within limit, reading
// (and discarding) whatever it sends.
func closedWithin(c net.Conn, limit time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// TestSlowClientsAreCut: a connection that sends nothing, a kept-alive
// connection left idle, and bodies trickled a byte a second (without and
// with the token) are all closed by the daemon within bounded time, while
// a GET event stream open past those timeouts stays up.
func TestSlowClientsAreCut(t *testing.T) {
	t.Parallel()
	root := demo(t)
	d := startDaemon(t, root)
	addr := "127.0.0.1:" + strconv.Itoa(d.port)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	trickle := func(c net.Conn, token bool) {
		hdr := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n", addr)
		if token {
			hdr += "Authorization: Bearer " + d.token + "\r\n"
		}
		_, _ = io.WriteString(c, hdr+"\r\n")
		go func() {
			for range 200 {
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
				time.Sleep(time.Second)
			}
		}()
	}
	var wg sync.WaitGroup
	check := func(what string, c net.Conn) {
		wg.Go(func() {
			if !closedWithin(c, 3*time.Minute) {
				t.Errorf("%s: still open after 3 minutes", what)
			}
		})
	}
	check("a connection that sends nothing", dial())
	kept := dial()
	fmt.Fprintf(kept, "GET /status HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", addr, d.token)
	if resp, err := http.ReadResponse(bufio.NewReader(kept), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /status on a kept-alive connection: %v %v", resp, err)
	}
	check("an idle kept-alive connection", kept)
	unauth := dial()
	trickle(unauth, false)
	check("a trickled body without a token", unauth)
	auth := dial()
	trickle(auth, true)
	check("a trickled body with the token", auth)

	// A long stream outlives the read timeouts: keep-alives keep coming.
	stream := openMCPStream(t, d)
	deadline := time.Now().Add(BodyTimeoutPlus)
	alive := 0
	for time.Now().Before(deadline) || alive == 0 {
		line, err := stream.ReadString('\n')
		if err != nil {
			t.Fatalf("the GET stream ended after %s: %v", time.Since(deadline.Add(-BodyTimeoutPlus)), err)
		}
		if strings.HasPrefix(line, ": keep-alive") && time.Now().After(deadline) {
			alive++
		}
	}
	wg.Wait()
}

// BodyTimeoutPlus is past vxd's 30s read timeout.
const BodyTimeoutPlus = 45 * time.Second

// TestConnectionCap: 300 connections at once are not all served: vxd
// holds at most 128 (the rest wait in the kernel's queue), and it answers
// again once the idle ones are cut.
func TestConnectionCap(t *testing.T) {
	t.Parallel()
	root := demo(t)
	d := startDaemon(t, root)
	var pid int
	daemonPIDs.Range(func(k, v any) bool {
		if v.(string) == root {
			pid = k.(int)
		}
		return true
	})
	for range 300 {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(d.port))
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		t.Cleanup(func() { c.Close() })
	}
	time.Sleep(time.Second) // let vxd accept what it will
	if n := sockets(pid); n > 128+16 {
		t.Errorf("vxd holds %d sockets with 300 clients connected; the cap is 128", n)
	} else {
		t.Logf("vxd holds %d sockets with 300 idle clients connected", n)
	}
	harness.WaitFor(t, 2*time.Minute, "vxd to answer again", func() bool {
		req, _ := http.NewRequest(http.MethodGet, d.base()+"/status", nil)
		req.Header = bearerHeader(d.token)
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// openMCPStream initializes an MCP session over raw HTTP and opens its
// GET event stream.
func openMCPStream(t *testing.T, d *vxd) *bufio.Reader {
	t.Helper()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize",` +
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"live","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, d.base()+"/mcp", strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %v %v", resp, err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	req, _ = http.NewRequest(http.MethodGet, d.base()+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return bufio.NewReader(resp.Body)
}

// sockets counts the open sockets of a process.
func sockets(pid int) int {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}
