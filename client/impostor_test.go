package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/proof"
	"github.com/vzn/vx/protocol/wire"
)

// isImpostor reports whether err is (or wraps) a *client.ImpostorError,
// the type a caller tells a squatting process by.
func isImpostor(err error) bool {
	var ie *client.ImpostorError
	return errors.As(err, &ie)
}

// recorder keeps every request a fake daemon got, headers and body.
type recorder struct {
	mu  sync.Mutex
	got bytes.Buffer
}

func (r *recorder) keep(req *http.Request) []byte {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got.WriteString(req.Method + " " + req.RequestURI + "\n")
	_ = req.Header.Write(&r.got)
	r.got.Write(body)
	return body
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got.String()
}

// pointAt rewrites root's discovery file to name port, keeping the rest,
// and puts the real one back when the test ends.
func pointAt(t *testing.T, root string, port int) *wire.Discovery {
	t.Helper()
	real, err := os.ReadFile(layout.Discovery(root))
	if err != nil {
		t.Fatal(err)
	}
	var d wire.Discovery
	if err := json.Unmarshal(real, &d); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.WriteFile(layout.Discovery(root), real, 0o600) })
	fake := d
	fake.Port = port
	b, _ := json.Marshal(fake)
	if err := os.WriteFile(layout.Discovery(root), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return &d
}

// askProved asks the real daemon d names a proved GET uri, as the client
// does, and answers the answer (to replay it).
func askProved(t *testing.T, d *wire.Discovery, uri string) (*http.Response, []byte) {
	t.Helper()
	nonce, _ := proof.NewNonce()
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(d.Port)+uri, nil)
	req.Header.Set(proof.NonceHeader, nonce)
	req.Header.Set("Authorization", proof.Scheme+" "+proof.Request(d.Token, d.Port, nonce, http.MethodGet, req.URL.RequestURI()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !proof.ValidMAC(resp.Header.Get(proof.ProofHeader)) {
		t.Fatalf("the daemon's proved answer to %s: %s %q", uri, resp.Status, body)
	}
	return resp, body
}

// TestReplayedOrRelayedAnswersAreRefused: a process on the discovery
// file's port that replays the daemon's earlier proved answers, or relays
// each request to the real daemon on its own port and its answer back,
// is not taken for the daemon (the proofs are bound to the client's nonce
// and to the port it dialed), is named on Notice, and never gets the
// token.
func TestReplayedOrRelayedAnswersAreRefused(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t)
	stopAtEnd(t, root)
	ensureCurrent(t, root)
	real, _ := (&client.Client{Root: root}).Discovery()
	captured := map[string]*http.Response{}
	bodies := map[string][]byte{}
	for _, p := range []string{"/status", wire.ChangesPath} {
		captured[p], bodies[p] = askProved(t, real, p)
	}
	fakes := map[string]func(rec *recorder) http.HandlerFunc{
		"replay": func(rec *recorder) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				rec.keep(r)
				if a, ok := captured[r.URL.Path]; ok {
					w.Header().Set(proof.ProofHeader, a.Header.Get(proof.ProofHeader))
					_, _ = w.Write(bodies[r.URL.Path])
				}
			}
		},
		"relay": func(rec *recorder) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				body := rec.keep(r)
				out, _ := http.NewRequest(r.Method, "http://127.0.0.1:"+strconv.Itoa(real.Port)+r.RequestURI, bytes.NewReader(body))
				out.Header = r.Header.Clone()
				resp, err := http.DefaultClient.Do(out)
				if err != nil {
					w.WriteHeader(http.StatusBadGateway)
					return
				}
				defer resp.Body.Close()
				for k, v := range resp.Header {
					w.Header()[k] = v
				}
				w.WriteHeader(resp.StatusCode)
				_, _ = io.Copy(w, resp.Body)
			}
		},
	}
	for name, fake := range fakes {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			srv := httptest.NewServer(fake(rec))
			defer srv.Close()
			port := srv.Listener.Addr().(*net.TCPAddr).Port
			pointAt(t, root, port)
			var notice bytes.Buffer
			c := &client.Client{Root: root, Notice: &notice}
			if st, _, err := c.Status(ctx); !isImpostor(err) || !client.IsNotRunning(err) {
				t.Errorf("Status through the %s = %+v, %v; want not running: an impostor", name, st, err)
			}
			if ans, err := c.Changes(ctx, "", 0); !isImpostor(err) {
				t.Errorf("Changes through the %s = %+v, %v; want an impostor", name, ans, err)
			}
			if stopped, err := c.Stop(ctx); stopped || err != nil {
				t.Errorf("Stop through the %s = %v, %v; want nothing stopped", name, stopped, err)
			}
			want := "vx: port " + strconv.Itoa(port) + " is held by a process that is not this workspace's vxd"
			if n := strings.Count(notice.String(), want); n != 1 {
				t.Errorf("Notice said it %d times, want once:\n%s", n, notice.String())
			}
			if got := rec.String(); strings.Contains(got, real.Token) || !strings.Contains(got, proof.Scheme) {
				t.Errorf("the %s got the token, or no question at all:\n%s", name, got)
			}
		})
	}
	// The daemon itself still answers, and was not stopped.
	if st, _, err := (&client.Client{Root: root}).Status(ctx); err != nil || st.PID != real.PID {
		t.Errorf("the real daemon after the impostors: %+v, %v", st, err)
	}
}

// TestTransportProvesEachConnection: the shim's transport sends a request
// (and its bearer token) on a connection only once the daemon proved
// itself on it; after the daemon is killed and another process takes its
// port, a new connection is refused as an impostor's, before any request
// goes out on it.
func TestTransportProvesEachConnection(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t)
	stopAtEnd(t, root)
	c := &client.Client{Root: root, VXD: vxdBin}
	base, token, err := c.Ensure(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Transport()
	hc := &http.Client{Transport: tr}
	get := func() (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodGet, base+"/status", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return hc.Do(req)
	}
	resp, err := get()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /status on a proved connection: %v %v", resp, err)
	}
	resp.Body.Close()
	tr.CloseIdleConnections()

	d, _ := c.Discovery()
	kill(t, d.PID)
	waitGone(t, d.PID)
	waitUnlocked(t, root)
	rec := &recorder{}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(d.Port))
	if err != nil {
		t.Skipf("the killed daemon's port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.keep(r)
		w.Header().Set(proof.ProofHeader, strings.TrimPrefix(r.Header.Get("Authorization"), proof.Scheme+" "))
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	holdLock(t, root) // as a vxd that is starting holds it
	if resp, err := get(); err == nil || !isImpostor(err) {
		if resp != nil {
			resp.Body.Close()
		}
		t.Fatalf("GET through the impostor's port = %v, %v; want the connection refused as an impostor's", resp, err)
	}
	if got := rec.String(); strings.Contains(got, token) || !strings.Contains(got, proof.HelloPath) || strings.Contains(got, "/status") {
		t.Errorf("the impostor got more than the hello:\n%s", got)
	}
}

// TestUnprovableHolderIsNamed: when the process on the discovery file's
// port cannot prove itself and something holds the workspace lock (a vxd
// from before the proof), Ensure starts no second daemon, sends no token,
// and its error names the port and the pid to stop.
func TestUnprovableHolderIsNamed(t *testing.T) {
	root := newWorkspace(t)
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.keep(r)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	if err := os.MkdirAll(layout.Daemon(root), 0o700); err != nil {
		t.Fatal(err)
	}
	disc, _ := json.Marshal(wire.Discovery{PID: 4242, Port: port, Token: strings.Repeat("ab", 32), Root: root})
	if err := os.WriteFile(layout.Discovery(root), disc, 0o600); err != nil {
		t.Fatal(err)
	}
	holdLock(t, root)
	var notice bytes.Buffer
	c := &client.Client{Root: root, VXD: vxdBin, StartTimeout: 2 * time.Second, Notice: &notice}
	_, _, err := c.Ensure(context.Background(), false)
	if err == nil || !strings.Contains(err.Error(), "port "+strconv.Itoa(port)) || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("Ensure = %v; want an error naming port %d and pid 4242", err, port)
	}
	if !strings.Contains(notice.String(), "is held by a process that is not this workspace's vxd") {
		t.Errorf("Notice: %q", notice.String())
	}
	if got := rec.String(); strings.Contains(got, strings.Repeat("ab", 32)) || strings.Count(got, "GET /status") != 1 {
		t.Errorf("the holder was sent the token, or asked more than once:\n%s", got)
	}
}
