package server

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/protocol/wire"
)

// Two vx runs asking what changed at once are answered independently:
// the endpoint keeps no state of one request that another writes (run
// under -race).
func TestChangesAnswersConcurrentRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := &daemon{root: t.TempDir(), log: zerolog.Nop()}
	h, j, err := d.journalEndpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if j != nil {
		defer j.Close()
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := wire.ChangesPath + "?epoch=ab&seq=1"
			want := 200
			if i%2 == 1 {
				target, want = wire.ChangesPath+"?epoch=ab&seq=x", 400
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
			if rec.Code != want {
				t.Errorf("GET %s: %d %s, want %d", target, rec.Code, rec.Body, want)
			}
		}()
	}
	wg.Wait()
}
