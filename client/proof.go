package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/vzn/vx/internal/privfile"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/proof"
	"github.com/vzn/vx/protocol/wire"
)

// ImpostorError says the port of the discovery file is held by a process
// that did not prove it knows the daemon's token: another user's process
// on a dead daemon's port, or no vxd of this workspace at all.
type ImpostorError struct {
	Port int
	Why  string
}

func (e *ImpostorError) Error() string {
	return fmt.Sprintf("port %d is held by a process that is not this workspace's vxd (%s)", e.Port, e.Why)
}

// isImpostor reports whether err is (or wraps) an ImpostorError.
func isImpostor(err error) bool {
	var ie *ImpostorError
	return errors.As(err, &ie)
}

// impostor is the notRunningError of a peer that failed the proof.
func (c *Client) impostor(port int, why string) error {
	ie := &ImpostorError{Port: port, Why: why}
	return &notRunningError{Root: c.Root, Reason: ie.Error(), Err: ie}
}

// ask sends method uri (path?query) to the daemon d names and answers its
// status and body once the answer is proved (proof.Answer): the request
// carries a fresh nonce and is authorized by its MAC (proof.Request), so
// the token is never sent, and an answer without the right proof is a
// notRunningError wrapping an ImpostorError. No daemon holding the
// workspace lock is a notRunningError before anything is sent. The body
// is read up to limit bytes.
func (c *Client) ask(ctx context.Context, hc *http.Client, d *wire.Discovery, method, uri string, limit int64) (int, []byte, error) {
	if !c.locked() {
		return 0, nil, &notRunningError{Root: c.Root, Reason: "no vxd holds the workspace lock: the discovery file is left from one that is gone"}
	}
	nonce, err := proof.NewNonce()
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:"+strconv.Itoa(d.Port)+uri, nil)
	if err != nil {
		return 0, nil, err
	}
	ruri := req.URL.RequestURI()
	req.Header.Set(proof.NonceHeader, nonce)
	req.Header.Set("Authorization", proof.Scheme+" "+proof.Request(d.Token, d.Port, nonce, method, ruri))
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, &notRunningError{Root: c.Root, Reason: "the daemon in the discovery file does not answer"}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return 0, nil, &notRunningError{Root: c.Root, Reason: "the daemon's answer broke off: " + err.Error()}
	}
	if int64(len(body)) > limit {
		return 0, nil, c.impostor(d.Port, fmt.Sprintf("its answer to %s is over %d bytes", uri, limit))
	}
	if err := checkProof(resp, d, nonce, method, ruri, body); err != nil {
		return 0, nil, c.impostor(d.Port, err.Error())
	}
	return resp.StatusCode, body, nil
}

// checkProof checks the proof of an answer, in constant time.
func checkProof(resp *http.Response, d *wire.Discovery, nonce, method, uri string, body []byte) error {
	got := resp.Header.Get(proof.ProofHeader)
	if got == "" {
		return fmt.Errorf("it answered %s with no proof that it knows the token", resp.Status)
	}
	if !proof.Equal(got, proof.Answer(d.Token, d.Port, nonce, method, uri, resp.StatusCode, body)) {
		return fmt.Errorf("it answered %s with a wrong proof", resp.Status)
	}
	return nil
}

// Transport is an HTTP transport to the daemon that proves every
// connection before it carries a request: the dial sends GET
// proof.HelloPath authorized by a MAC and wants the proof back, under the
// token of the daemon Status or Ensure last proved, and refuses a port no
// daemon proved itself on. The bearer token a request carries thus only
// ever reaches the daemon it belongs to, even when that daemon dies and
// another process takes its port.
func (c *Client) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = c.dialProved
	return t
}

// vouch remembers d as the daemon that proved itself last.
func (c *Client) vouch(d *wire.Discovery) {
	c.mu.Lock()
	c.proved = d
	c.mu.Unlock()
}

func (c *Client) dialProved(ctx context.Context, network, addr string) (net.Conn, error) {
	c.mu.Lock()
	d := c.proved
	c.mu.Unlock()
	if d == nil || addr != "127.0.0.1:"+strconv.Itoa(d.Port) {
		return nil, fmt.Errorf("no vxd of %s proved itself at %s", c.Root, addr)
	}
	if !c.locked() {
		return nil, &notRunningError{Root: c.Root, Reason: "no vxd holds the workspace lock"}
	}
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if err := c.hello(ctx, conn, d); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// helloWait bounds the proof of a new connection.
const helloWait = 5 * time.Second

// hello proves conn: GET proof.HelloPath with a nonce, wanting 204 with
// the proof and nothing after it.
func (c *Client) hello(ctx context.Context, conn net.Conn, d *wire.Discovery) error {
	deadline := time.Now().Add(helloWait)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})
	nonce, err := proof.NewNonce()
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(d.Port)+proof.HelloPath, nil)
	if err != nil {
		return err
	}
	req.Header.Set(proof.NonceHeader, nonce)
	req.Header.Set("Authorization", proof.Scheme+" "+proof.Request(d.Token, d.Port, nonce, http.MethodGet, proof.HelloPath))
	if err := req.Write(conn); err != nil {
		return err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return c.impostor(d.Port, "it does not answer "+proof.HelloPath+" as vxd: "+err.Error())
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if err == nil {
		err = checkProof(resp, d, nonce, http.MethodGet, proof.HelloPath, body)
	}
	if err == nil && (resp.StatusCode != http.StatusNoContent || br.Buffered() > 0 || resp.Close) {
		err = fmt.Errorf("it answered %s %s with more than the proof", proof.HelloPath, resp.Status)
	}
	if err != nil {
		return c.impostor(d.Port, err.Error())
	}
	return nil
}

// refuse remembers that d's port failed the proof (err an ImpostorError)
// and says so on Notice, with what vx does instead; once per discovery
// file.
func (c *Client) refuse(d *wire.Discovery, err error, instead string) {
	if !isImpostor(err) {
		return
	}
	said := c.wasRefused(d)
	c.mu.Lock()
	c.refused = d
	c.mu.Unlock()
	if !said && c.Notice != nil {
		var ie *ImpostorError
		errors.As(err, &ie)
		fmt.Fprintf(c.Notice, "vx: %s: %s\n", ie, instead)
	}
}

// private reports why the discovery file may not be trusted at all ("" when
// it may): it and its directory must belong to this user, and neither may
// be open to others (the file holds the token; whoever may write either
// could point clients at a port of their own with a token they know).
func private(root string) string {
	for _, p := range []struct {
		path string
		deny os.FileMode
	}{{layout.Daemon(root), 0o022}, {layout.Discovery(root), 0o077}} {
		fi, err := os.Lstat(p.path)
		if err != nil {
			return noDiscovery
		}
		if uid, ok := privfile.Owner(fi); ok && uid != os.Geteuid() {
			return fmt.Sprintf("%s belongs to uid %d, not to this user (uid %d)", p.path, uid, os.Geteuid())
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Sprintf("%s is a symlink (whoever made it chose where it points)", p.path)
		}
		if fi.Mode().Perm()&p.deny != 0 {
			return fmt.Sprintf("%s is open to other users (mode %v)", p.path, fi.Mode())
		}
	}
	return ""
}

// noDiscovery is private's reason when there is no discovery file.
const noDiscovery = "no discovery file"

// UntrustedError says the discovery file is not trusted: it or its
// directory belongs to another user or is open to others.
type UntrustedError struct{ Why string }

func (e *UntrustedError) Error() string {
	return "the discovery file is not trusted: " + e.Why
}

// wasRefused reports whether d is a discovery file whose port already
// failed the proof: Start does not ask it again.
func (c *Client) wasRefused(d *wire.Discovery) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused != nil && c.refused.Port == d.Port && c.refused.Token == d.Token && c.refused.PID == d.PID
}
