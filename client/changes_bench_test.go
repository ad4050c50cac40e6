package client_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// BenchmarkChangesQuestion is what `vx run` pays to ask vxd's change
// journal: proved is Changes as it asks (the lock probe, a nonce and its
// MAC, the proof of the answer checked); bearer is the same question with
// the token and nothing checked, as it was asked before the proof. Both on
// a kept-alive connection to the same daemon.
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
	d, _ := c.Discovery()
	b.Run("proved", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := c.Changes(context.Background(), "", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bearer", func(b *testing.B) {
		hc := &http.Client{}
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(d.Port)+wire.ChangesPath+"?", nil)
			req.Header.Set("Authorization", "Bearer "+d.Token)
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
