package connlimit

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestIdleConnectionsGiveWay: with every slot taken by connections that
// send nothing, or that are kept alive between requests, a new client is
// still served: the idlest connection is closed for it.
func TestIdleConnectionsGiveWay(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := NewListener(tcp, 3)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }),
		ConnState: ln.ConnState, ReadHeaderTimeout: time.Minute, IdleTimeout: time.Minute}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := "http://" + tcp.Addr().String()

	// One kept-alive connection, idle after its request.
	kept := &http.Client{Transport: &http.Transport{}}
	get(t, kept, addr)
	// Two that never send a request.
	for range 2 {
		c, err := net.Dial("tcp", tcp.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	// Each new client takes an idle one's slot.
	for range 3 {
		get(t, &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, addr)
	}
}

func get(t *testing.T, c *http.Client, url string) {
	t.Helper()
	c.Timeout = 30 * time.Second
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET with every slot taken: %v", err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
		t.Fatalf("GET: %s", b)
	}
}
