package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// BenchmarkChangesQuestion is what `vx run` pays to ask vxd's change
// journal: proved is Changes as it asks (the lock probe, a nonce and its
// MAC, the proof of the answer checked); bearer is the same question as
// Changes asked it before the proof (the token sent, nothing checked).
// Both on a kept-alive connection to the same daemon.
func BenchmarkChangesQuestion(b *testing.B) {
	root := b.TempDir()
	testtree.Write(b, root, map[string]string{
		"vx.workspace.json":     `{"projects": ["apps/*"], "tasks": {"build": {"command": "true"}}}`,
		"apps/web/package.json": `{"name": "web"}`,
	})
	c := &client.Client{Root: root, VXD: vxdBin}
	if _, _, err := c.Ensure(context.Background(), false); err != nil {
		b.Fatal(err)
	}
	defer c.Stop(context.Background())
	b.Run("proved", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := c.Changes(context.Background(), "", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bearer", func(b *testing.B) {
		// What Changes did before the proof: read the discovery file,
		// send the token, decode the answer.
		hc := &http.Client{}
		for i := 0; i < b.N; i++ {
			var d wire.Discovery
			raw, err := os.ReadFile(layout.Discovery(root))
			if err != nil || json.Unmarshal(raw, &d) != nil {
				b.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(d.Port)+wire.ChangesPath+"?", nil)
			req.Header.Set("Authorization", "Bearer "+d.Token)
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var ans wire.Changes
			if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkFreshConnection is what the proof adds to a call of vx mcp,
// which sends each call on a connection of its own: proved is GET /status
// on a new connection of Transport (dial, GET /hello, the request); plain
// is the same on a new connection of a transport that proves nothing.
func BenchmarkFreshConnection(b *testing.B) {
	root := b.TempDir()
	testtree.Write(b, root, map[string]string{
		"vx.workspace.json":     `{"projects": ["apps/*"], "tasks": {"build": {"command": "true"}}}`,
		"apps/web/package.json": `{"name": "web"}`,
	})
	c := &client.Client{Root: root, VXD: vxdBin}
	base, token, err := c.Ensure(context.Background(), false)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Stop(context.Background())
	for name, tr := range map[string]*http.Transport{"proved": c.Transport(), "plain": http.DefaultTransport.(*http.Transport).Clone()} {
		tr.DisableKeepAlives = true
		hc := &http.Client{Transport: tr}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				req, _ := http.NewRequest(http.MethodGet, base+"/status", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
