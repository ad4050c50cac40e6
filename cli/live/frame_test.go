package live

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vzn/vx/protocol/wire"
)

// fixedForecast predicts left for whatever is asked, with p50s.
type fixedForecast struct {
	left    time.Duration
	unknown int
	p50     map[string]time.Duration
}

func (f fixedForecast) Load(context.Context) error { return nil }
func (f fixedForecast) P50(id string) (time.Duration, bool) {
	d, ok := f.p50[id]
	return d, ok
}
func (f fixedForecast) Left(func(string) bool, map[string]time.Duration) (time.Duration, int) {
	return f.left, f.unknown
}

// running is a state at now with tasks running since the seconds given.
func running(now time.Time, total int, since map[string]int) *state {
	s := &state{total: total, began: now.Add(-62 * time.Second), running: map[string]time.Time{}, finished: map[string]bool{}}
	for id, sec := range since {
		s.running[id] = now.Add(-time.Duration(sec) * time.Second)
	}
	return s
}

func TestFrame(t *testing.T) {
	now := time.Now()
	six := map[string]int{"a#build": 60, "b#build": 50, "c#build": 40, "d#build": 30, "e#build": 20, "f#build": 10}
	for _, tc := range []struct {
		name       string
		st         *state
		cols, rows int
		want       string
	}{
		{name: "counts, each running task oldest first", cols: 100, rows: 30,
			st: func() *state {
				s := running(now, 42, map[string]int{"web#build": 12, "api#test": 3})
				s.done, s.failed, s.hits = 3, 1, 2
				return s
			}(),
			want: "vx  3 of 42 done · 1 failed · 2 cached · 2 running · 1m02s\n  web#build  12s\n  api#test  3s"},
		{name: "time left and p50s from the forecast", cols: 100, rows: 30,
			st: func() *state {
				s := running(now, 4, map[string]int{"web#build": 12})
				s.fc = fixedForecast{left: 189500 * time.Millisecond, p50: map[string]time.Duration{"web#build": 40 * time.Second}}
				return s
			}(),
			want: "vx  0 of 4 done · 1 running · 1m02s · ~3m10s left\n  web#build  12s (p50 40s)"},
		{name: "tasks without history", cols: 100, rows: 30,
			st: func() *state {
				s := running(now, 4, nil)
				s.fc = fixedForecast{left: 5 * time.Second, unknown: 3}
				return s
			}(),
			want: "vx  0 of 4 done · 0 running · 1m02s · ~5s left + 3 without history"},
		{name: "no time left shown when nothing has history", cols: 100, rows: 30,
			st: func() *state {
				s := running(now, 4, nil)
				s.fc = fixedForecast{unknown: 4}
				return s
			}(),
			want: "vx  0 of 4 done · 0 running · 1m02s"},
		{name: "short screen: +k more", cols: 100, rows: 10, st: running(now, 6, six),
			want: "vx  0 of 6 done · 6 running · 1m02s\n  a#build  1m00s\n  b#build  50s\n  c#build  40s\n  +3 more"},
		{name: "at most 8 running rows", cols: 100, rows: 100, st: running(now, 12, map[string]int{
			"a": 12, "b": 11, "c": 10, "d": 9, "e": 8, "f": 7, "g": 6, "h": 5, "i": 4, "j": 3}),
			want: "vx  0 of 12 done · 10 running · 1m02s\n  a  12s\n  b  11s\n  c  10s\n  d  9s\n  e  8s\n  f  7s\n  g  6s\n  +3 more"},
		{name: "tiny screen: the counts alone", cols: 100, rows: 3, st: running(now, 6, six),
			want: "vx  0 of 6 done · 6 running · 1m02s"},
		{name: "narrow screen: rows cut", cols: 20, rows: 30, st: running(now, 6, map[string]int{"a-very-long-project-name#build": 5}),
			want: "vx  0 of 6 done · …\n  a-very-long-proj…"},
		{name: "one column", cols: 1, rows: 30, st: running(now, 1, nil), want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.st.frame(now, tc.cols, tc.rows)
			if got != tc.want {
				t.Errorf("frame:\n%s\nwant:\n%s", got, tc.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if n := utf8.RuneCountInString(l); n >= max(tc.cols, 1) && tc.cols > 1 {
					t.Errorf("row %q has %d characters on a %d-column screen", l, n, tc.cols)
				}
			}
			if rows := rowsAt(widths(nil, got), tc.cols); rows > max(1, tc.rows/2) {
				t.Errorf("%d rows on a %d-row screen", rows, tc.rows)
			}
		})
	}
}

func TestNoteCounts(t *testing.T) {
	s := &state{running: map[string]time.Time{}, finished: map[string]bool{}}
	now := time.Now()
	for _, e := range []wire.Event{
		{Type: wire.EventTaskStarted, TaskID: "a"},
		{Type: wire.EventTaskStarted, TaskID: "b"},
		{Type: wire.EventTaskFinished, TaskID: "a", Status: wire.StatusPassed, Cache: wire.CacheHit},
		{Type: wire.EventTaskFinished, TaskID: "b", Status: wire.StatusFailed, Cache: wire.CacheMiss},
		{Type: wire.EventTaskFinished, TaskID: "b", Status: wire.StatusFailed, Cache: wire.CacheMiss},
		{Type: wire.EventTaskFinished, TaskID: "c", Status: wire.StatusTimedOut},
	} {
		s.note(e, now)
	}
	if s.done != 3 || s.hits != 1 || s.failed != 2 || len(s.running) != 0 {
		t.Errorf("done %d, hits %d, failed %d, running %d; want 3, 1, 2, 0", s.done, s.hits, s.failed, len(s.running))
	}
}

// screen collects what a view writes.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestViewWrites: task lines pass straight through until the area shows,
// are held while it shows and written above it at its redraw, and Stop
// writes what is held, clears the area and shows the cursor.
func TestViewWrites(t *testing.T) {
	out := &screen{}
	v := New(out, func() (int, int) { return 80, 24 })
	v.every = time.Hour // the test redraws
	v.Write([]byte("x#build: before\n"))
	if out.String() != "x#build: before\n" {
		t.Fatalf("before the area shows, a line is not written at once: %q", out.String())
	}
	v.Event(wire.Event{Type: wire.EventRunStarted, Tasks: 2})
	v.Event(wire.Event{Type: wire.EventTaskStarted, TaskID: "x#build"})
	v.mu.Lock()
	v.redraw()
	shown := out.String()
	v.redraw()
	v.mu.Unlock()
	if !strings.Contains(shown, hideCursor+"vx  0 of 2 done") || out.String() != shown {
		t.Fatalf("first frame %q; an unchanged frame redrawn: %q", shown, out.String())
	}
	v.Write([]byte("x#build: during\nx#build: part"))
	if out.String() != shown {
		t.Errorf("a line was written while the area shows, before its redraw")
	}
	v.mu.Lock()
	v.redraw()
	v.mu.Unlock()
	if got := strings.TrimPrefix(out.String(), shown); !strings.HasPrefix(got, "\r\x1b[2K\x1b[A\x1b[2Kx#build: during\nvx  0 of 2 done") {
		t.Errorf("a redraw with a held line wrote %q", got)
	}
	before := out.String()
	v.Event(wire.Event{Type: wire.EventRunFinished})
	v.Stop()
	if got := strings.TrimPrefix(out.String(), before); got != "\r\x1b[2K\x1b[A\x1b[2Kx#build: part"+showCursor {
		t.Errorf("Stop wrote %q", got)
	}
	v.Write([]byte("footer\n"))
	if !strings.HasSuffix(out.String(), showCursor+"footer\n") {
		t.Errorf("after Stop a line is not written at once: %q", out.String())
	}
}

// TestQuickRunDrawsNothing: a run that ends before the first tick (a
// fully cached one) never starts the ticker: its lines go out as they
// are, without one escape sequence.
func TestQuickRunDrawsNothing(t *testing.T) {
	out := &screen{}
	v := New(out, func() (int, int) { return 80, 24 })
	v.every = time.Hour
	v.Event(wire.Event{Type: wire.EventRunStarted, Tasks: 1})
	v.Event(wire.Event{Type: wire.EventTaskStarted, TaskID: "x#build"})
	v.Write([]byte("x#build: replayed\n"))
	v.Event(wire.Event{Type: wire.EventTaskFinished, TaskID: "x#build", Status: wire.StatusPassed, Cache: wire.CacheHit})
	v.Event(wire.Event{Type: wire.EventRunFinished})
	v.Write([]byte("footer\n"))
	if got := out.String(); got != "x#build: replayed\nfooter\n" {
		t.Errorf("a run shorter than a tick wrote %q", got)
	}
	if v.timer.Stop() {
		t.Errorf("the ticker's timer was still pending after the run ended")
	}
}

// TestFloodDrawsNoMoreOften: past maxPending held bytes the area goes and
// the lines flow straight out until the next tick draws it again.
func TestFloodDrawsNoMoreOften(t *testing.T) {
	out := &screen{}
	v := New(out, func() (int, int) { return 80, 24 })
	v.every = time.Hour // the test redraws
	v.Event(wire.Event{Type: wire.EventRunStarted, Tasks: 1})
	v.Event(wire.Event{Type: wire.EventTaskStarted, TaskID: "x#build"})
	v.mu.Lock()
	v.redraw()
	v.mu.Unlock()
	shown := out.String()
	line := []byte("x#build: " + strings.Repeat("y", 90) + "\n")
	n := 0
	for ; n*len(line) <= maxPending; n++ {
		v.Write(line)
	}
	after := strings.TrimPrefix(out.String(), shown)
	if !strings.HasPrefix(after, "\r\x1b[2K\x1b[A\x1b[2K") || strings.Count(after, string(line)) != n || strings.Contains(after, "of 1 done") {
		t.Fatalf("a flood of %d lines did not erase the area once and write them: %q…", n, after[:min(len(after), 40)])
	}
	before := out.String()
	v.Write(line)
	if out.String() != before+string(line) {
		t.Errorf("with the area gone a line is not written straight out")
	}
	v.mu.Lock()
	v.redraw()
	v.mu.Unlock()
	if got := strings.TrimPrefix(out.String(), before+string(line)); !strings.HasPrefix(got, "vx  0 of 1 done") {
		t.Errorf("the next tick did not draw the area again below the lines: %q", got)
	}
	v.Stop()
}
