// Package live is vx run's live view on a terminal: a status area at the
// bottom of the screen (tasks done of the total, failures, cache hits,
// each running task with its elapsed time, the time left predicted from
// the history) with the run's task lines scrolling above it. It redraws at
// most ten times a second, and only when something changed; it clears
// the area when the run ends, so the summary prints as it would without
// it.
package live

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// Forecaster predicts the time a run has left (runner.Forecast).
type Forecaster interface {
	Load(ctx context.Context) error
	P50(id string) (time.Duration, bool)
	Left(done func(id string) bool, running map[string]time.Duration) (time.Duration, int)
}

// redrawEvery is how often the view may redraw.
const redrawEvery = 100 * time.Millisecond

// maxPending bounds the task lines held between redraws: past it a write
// draws at once.
const maxPending = 64 << 10

// View draws the status area on a terminal. Its Write takes the task lines
// (they scroll above the area), Event follows the run, Progress takes its
// forecast. The zero value is not usable: use New.
type View struct {
	out   io.Writer
	size  func() (cols, rows int)
	every time.Duration // redrawEvery

	mu      sync.Mutex
	st      state
	fc      Forecaster
	loaded  bool
	pending []byte
	shown   []int  // the width of each line of the area on the screen now
	last    string // the frame on the screen
	hidden  bool   // the cursor is hidden
	midLine bool   // what went out straight ended inside a line
	ticking bool
	timer   *time.Timer // starts the ticker
	stop    chan struct{}
	done    chan struct{}
}

// New is a view drawing on out, a terminal whose size size reads (it is
// read again at each redraw, so a resized terminal is followed).
func New(out io.Writer, size func() (cols, rows int)) *View {
	return &View{out: out, size: size, every: redrawEvery, st: state{running: map[string]time.Time{}, finished: map[string]bool{}}}
}

// Progress takes the run's forecast; the view loads its p50s in the
// background once the run has lasted a tick.
func (v *View) Progress(f Forecaster) {
	v.mu.Lock()
	v.fc = f
	v.mu.Unlock()
}

// Event follows the run: its start starts the ticker, its end stops it and
// clears the area (before the summary prints).
func (v *View) Event(e wire.Event) {
	switch e.Type {
	case wire.EventRunStarted:
		v.start(e.Tasks)
	case wire.EventRunFinished:
		v.Stop()
	case wire.EventTaskStarted, wire.EventTaskFinished:
		v.mu.Lock()
		v.st.note(e, time.Now())
		v.mu.Unlock()
	}
}

// Write takes task lines. Before the area first shows and after the view
// stops they go straight out; while it shows they are held and drawn
// above it at the next tick (at once past maxPending).
func (v *View) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.shown) == 0 && len(v.pending) == 0 {
		if len(p) > 0 {
			v.midLine = p[len(p)-1] != '\n'
		}
		return v.out.Write(p)
	}
	v.pending = append(v.pending, p...)
	if len(v.pending) > maxPending {
		// The area goes until the next tick: lines flow straight out
		// meanwhile, so a flood of them draws it no more often.
		cols, _ := v.size()
		buf := append(erase(nil, rowsAt(v.shown, cols)), v.pending...)
		v.midLine = buf[len(buf)-1] != '\n'
		v.pending, v.shown, v.last = v.pending[:0], v.shown[:0], ""
		if _, err := v.out.Write(buf); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// start begins the run's clock and, one redrawEvery later, the ticker: a run
// that ends sooner (a fully cached one) never starts it and never draws.
func (v *View) start(total int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ticking {
		return
	}
	v.st.total, v.st.began = total, time.Now()
	v.ticking = true
	stop, done := make(chan struct{}), make(chan struct{})
	v.stop, v.done = stop, done
	v.timer = time.AfterFunc(v.every, func() { v.tick(stop, done) })
}

// Stop ends the view: it stops the ticker, writes the lines it holds,
// clears the area and shows the cursor again. It may be called more than
// once.
func (v *View) Stop() {
	v.mu.Lock()
	stop, done, timer := v.stop, v.done, v.timer
	v.stop = nil
	v.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	if !timer.Stop() {
		<-done // the ticker started: wait for its last redraw
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	cols, _ := v.size()
	buf := erase(nil, rowsAt(v.shown, cols))
	buf = append(buf, v.pending...)
	if v.hidden {
		buf = append(buf, showCursor...)
	}
	if len(buf) > 0 {
		_, _ = v.out.Write(buf)
	}
	v.pending, v.shown, v.last, v.hidden = nil, nil, "", false
}

// tick redraws now and then at most once a redrawEvery until stop closes. It
// first loads the forecast (outside the lock: it reads the history).
func (v *View) tick(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(v.every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		default:
		}
		v.load(stop)
		v.mu.Lock()
		v.redraw()
		v.mu.Unlock()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// load loads the forecast once, giving up when the run ends first.
func (v *View) load(stop <-chan struct{}) {
	v.mu.Lock()
	fc, loaded := v.fc, v.loaded
	v.loaded = true
	v.mu.Unlock()
	if fc == nil || loaded {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	if fc.Load(ctx) == nil {
		v.mu.Lock()
		v.st.fc = fc
		v.mu.Unlock()
	}
}

// redraw writes the held lines and the area, in one write, when either
// changed. v.mu is held. Its erase counts the rows of the area at the
// width read now: a terminal resized while the write is on its way reads
// it at another width, and what the erase then misses stays (no terminal
// says which width it will read bytes at).
func (v *View) redraw() {
	cols, rows := v.size()
	frame := v.st.frame(time.Now(), cols, rows)
	if frame == v.last && len(v.pending) == 0 {
		return
	}
	buf := erase(nil, rowsAt(v.shown, cols))
	// Only whole lines go above the area; a partial one waits.
	cut := len(v.pending)
	for cut > 0 && v.pending[cut-1] != '\n' {
		cut--
	}
	if v.midLine {
		buf = append(buf, '\n') // a line written straight out ended mid-way
		v.midLine = false
	}
	buf = append(buf, v.pending[:cut]...)
	v.pending = append(v.pending[:0], v.pending[cut:]...)
	if !v.hidden {
		buf = append(buf, hideCursor...)
		v.hidden = true
	}
	buf = append(buf, frame...)
	_, _ = v.out.Write(buf)
	v.shown, v.last = widths(v.shown[:0], frame), frame
}
