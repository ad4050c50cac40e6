package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vzn/vx/protocol/wire"
)

// Pages that join and leave while a shell run's task events are tailed
// (kept undecoded while nobody watches, decoded while someone does, and
// an MCP client's following switching on and off meanwhile) each get the
// run's events from its start, every one in order without a gap, up to
// when they leave.
func TestPagesJoiningAroundTheSwitchGetEveryEvent(t *testing.T) {
	dir := t.TempDir()
	f := newLiveFeed()
	var following atomic.Bool
	f.Tap = func(wire.Event) {}
	f.Following = following.Load
	tl := newTailer(dir, f)
	path := filepath.Join(dir, "r1.jsonl")
	write := func(e wire.Event) {
		line, err := e.AppendJSON(nil)
		if err != nil {
			t.Error(err)
			return
		}
		fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Error(err)
			return
		}
		fh.Write(append(line, '\n'))
		fh.Close()
		tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
	}
	write(wire.Event{Type: wire.EventRunStarted, RunID: "r1", Command: "vx run build", Tasks: 2000})
	const tasks = 2000
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				replay, ch, cancel := f.SubscribeLive()
				if len(replay) == 0 || replay[0].Type != wire.EventRunStarted {
					t.Errorf("a page's replay does not start with the run's start: %d events", len(replay))
					cancel()
					return
				}
				next := 0 // the index of the task event expected next
				check := func(e wire.Event) bool {
					if e.Type == wire.EventRunFinished {
						return false
					}
					want := fmt.Sprintf("p%d#build", next/2)
					typ := wire.EventTaskStarted
					if next%2 == 1 {
						typ = wire.EventTaskFinished
					}
					if e.TaskID != want || e.Type != typ {
						t.Errorf("a page got %s %s where %s %s was next", e.Type, e.TaskID, typ, want)
						return false
					}
					next++
					return true
				}
				for _, e := range replay[1:] {
					if !check(e) {
						cancel()
						return
					}
				}
				for n := 0; n < 1+i%50; n++ {
					select {
					case e, ok := <-ch:
						if !ok || !check(e) {
							cancel()
							return
						}
					case <-time.After(50 * time.Millisecond):
					}
				}
				cancel()
				time.Sleep(time.Duration(i%3) * time.Millisecond)
			}
		}()
	}
	for i := 0; i < tasks; i++ {
		following.Store(i%7 < 3)
		id := fmt.Sprintf("p%d#build", i)
		write(wire.Event{Type: wire.EventTaskStarted, RunID: "r1", TaskID: id})
		write(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: id, Status: wire.StatusPassed, Cache: wire.CacheHit})
	}
	replay, _, cancel := f.SubscribeLive()
	cancel()
	close(done)
	wg.Wait()
	if len(replay) != 1+2*tasks {
		t.Fatalf("a page joining at the end got %d events; want %d", len(replay), 1+2*tasks)
	}
	write(wire.Event{Type: wire.EventRunFinished, RunID: "r1"})
	if f.live.events != 0 || len(f.live.runs) != 0 {
		t.Errorf("after the run's end %d runs and %d events are kept", len(f.live.runs), f.live.events)
	}
}
