package remotecache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/protocol/wire"
)

// uploadWorkers is how many uploads run at once beside the tasks.
const uploadWorkers = 4

// fetchWorkers is how many downloads run at once: every task's artifact is
// asked for as the run starts, not when a worker reaches the task, since
// the keys are all known and a download mostly waits on the network.
const fetchWorkers = 16

// headBeforePut is the artifact size from which an upload first asks HEAD
// whether the server already holds the artifact.
const headBeforePut = 1 << 20

var errBadSignature = errors.New("bad signature")

// Session is one run's use of the remote cache. Its methods never fail the
// run: problems become warnings (each kind once) and turn the remote off
// where going on would only repeat them.
type Session struct {
	s    *Settings
	c    *client
	warn func(string)

	read  bool
	write atomic.Bool
	off   atomic.Bool // unreachable, timed out, refused, a server error or disabled
	// offKind is the wire.Remote* status that turned the remote off.
	offKind atomic.Value

	statusDone chan struct{}
	statusStop context.CancelFunc
	status     string

	warnMu sync.Mutex
	warned map[string]bool

	mu    sync.Mutex
	stats wire.RemoteRun

	prefetchMu sync.Mutex
	prefetches map[string]*prefetch
	fetchCtx   context.Context
	fetchStop  context.CancelFunc
	fetching   sync.WaitGroup

	sem      chan struct{}
	uploads  sync.WaitGroup
	pending  atomic.Int64
	upCtx    context.Context
	upCancel context.CancelFunc
}

// Start begins a run's session: it asks the server's status once, in the
// background; the first download waits for the answer. warn receives each
// warning line (the caller masks and prints it).
func Start(ctx context.Context, s *Settings, mode Mode, warn func(string)) *Session {
	x := &Session{s: s, c: newClient(s), warn: warn, read: mode.RemoteRead, warned: map[string]bool{},
		statusDone: make(chan struct{}), sem: make(chan struct{}, uploadWorkers),
		prefetches: map[string]*prefetch{}}
	x.write.Store(mode.RemoteWrite && !s.ReadOnly)
	x.upCtx, x.upCancel = context.WithCancel(context.WithoutCancel(ctx))
	x.fetchCtx, x.fetchStop = context.WithCancel(ctx)
	x.stats = wire.RemoteRun{URL: s.URL, Team: s.Team, Read: x.read, Write: x.write.Load(), Signature: s.Signature}
	if !x.read && !x.write.Load() {
		x.status, x.statusStop = "off", func() {}
		close(x.statusDone)
		return x
	}
	sctx, stop := context.WithCancel(ctx)
	x.statusStop = stop
	go func() {
		defer close(x.statusDone)
		st, _, err := x.c.Status(sctx)
		switch {
		case sctx.Err() != nil:
			// Finish came first (every task was a local hit): no verdict.
			x.status = "unknown"
		case err != nil:
			x.status = statusOf(err)
			x.trouble(err)
		case st != wire.RemoteEnabled:
			x.status = wire.RemoteDisabled
			x.off.Store(true)
			x.warnOnce("status", fmt.Sprintf("remote cache %s reports status %q, not enabled; this run uses the local cache only", s.Server(), st))
		default:
			x.status = wire.RemoteEnabled
		}
	}()
	return x
}

func statusOf(err error) string {
	var e *requestError
	if errors.As(err, &e) {
		return e.Kind
	}
	return wire.RemoteUnreachable
}

func (x *Session) warnOnce(kind, msg string) {
	x.warnMu.Lock()
	seen := x.warned[kind]
	x.warned[kind] = true
	x.warnMu.Unlock()
	if !seen && x.warn != nil {
		x.warn(msg)
	}
}

// trouble reports a failed request once per kind. A server that cannot be
// reached, does not answer, refuses the token or answers a server error
// (5xx) is not asked again this run, as Turborepo switches its remote off
// on the first failed request.
func (x *Session) trouble(err error) {
	var e *requestError
	if !errors.As(err, &e) {
		x.warnOnce("other", fmt.Sprintf("remote cache %s: %v", x.s.Server(), err))
		return
	}
	switch e.Kind {
	case wire.RemoteUnreachable, wire.RemoteTimeout, wire.RemoteUnauthorized, wire.RemoteServerError:
		x.turnOff(e.Kind)
		x.warnOnce("off", e.Error()+"; this run uses the local cache only")
	case wire.RemoteForbidden:
		if e.Op == "upload" {
			x.write.Store(false)
			x.warnOnce("forbidden-upload", e.Error()+"; no more uploads this run (read-only)")
			return
		}
		x.turnOff(e.Kind)
		x.warnOnce("off", e.Error()+"; this run uses the local cache only")
	default:
		x.warnOnce(e.Kind+e.Op, e.Error())
	}
}

func (x *Session) turnOff(kind string) {
	x.offKind.CompareAndSwap(nil, kind)
	x.off.Store(true)
}

func (x *Session) ready(ctx context.Context) bool {
	select {
	case <-x.statusDone:
	case <-ctx.Done():
		return false
	}
	return !x.off.Load()
}

// prefetch is a download started ahead of its task. The entry lands in
// the store; only whether it did is kept, so a large run holds no
// downloaded bytes in memory while it waits for the tasks.
type prefetch struct {
	taskID, key string
	done        chan struct{}
	ok          bool
}

// Wanted is a task whose artifact a run asks for ahead of time.
type Wanted struct{ TaskID, Key string }

// Prefetch starts downloading every wanted artifact into store now, on
// fetchWorkers goroutines; each task's Fetch then waits for its own.
func (x *Session) Prefetch(store *cache.Store, wanted []Wanted) {
	if !x.read || len(wanted) == 0 {
		return
	}
	queue := make(chan *prefetch, len(wanted))
	x.prefetchMu.Lock()
	for _, w := range wanted {
		p := &prefetch{taskID: w.TaskID, key: w.Key, done: make(chan struct{})}
		x.prefetches[w.Key] = p
		queue <- p
	}
	x.prefetchMu.Unlock()
	close(queue)
	for i := 0; i < min(fetchWorkers, len(wanted)); i++ {
		x.fetching.Add(1)
		go func() {
			defer x.fetching.Done()
			for p := range queue {
				if x.fetchCtx.Err() == nil {
					p.ok = x.fetch(x.fetchCtx, store, p.taskID, p.key) != nil
				}
				close(p.done)
			}
		}()
	}
}

// Fetch asks the server for key's artifact (or takes the prefetched one)
// and, when it arrives whole, signed (if signatures are on) and
// checksummed, stores it in store and returns it; nil on any miss.
func (x *Session) Fetch(ctx context.Context, store *cache.Store, taskID, key string) *cache.Hit {
	x.prefetchMu.Lock()
	p := x.prefetches[key]
	delete(x.prefetches, key)
	x.prefetchMu.Unlock()
	if p == nil {
		return x.fetch(ctx, store, taskID, key)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil
	}
	if !p.ok {
		return nil
	}
	hit, err := store.Get(key)
	if err != nil {
		x.warnOnce("store", fmt.Sprintf("reading a downloaded artifact for %s: %v", taskID, err))
		return nil
	}
	return hit
}

func (x *Session) fetch(ctx context.Context, store *cache.Store, taskID, key string) *cache.Hit {
	if !x.read || !x.ready(ctx) {
		return nil
	}
	id := remoteHash(x.s.Namespace, key)
	d, err := x.c.Get(ctx, id)
	if errors.Is(err, errNotFound) {
		x.count(func(s *wire.RemoteRun) { s.Misses++ })
		return nil
	}
	if err != nil {
		x.trouble(err)
		return nil
	}
	defer d.Close()
	var sg *signer
	if x.s.Signature {
		if d.Tag == "" {
			x.reject("unsigned", fmt.Sprintf("remote cache %s sent an unsigned artifact for %s; ignored "+
				"(a server keeps tags only when it is started with TURBO_REMOTE_CACHE_SIGNATURE_KEY)", x.s.Server(), taskID))
			return nil
		}
		sg = newSigner(x.s.Key, id, x.s.Team)
	}
	cr := &countReader{r: d.Body}
	var body io.Reader = cr
	if sg != nil {
		body = io.TeeReader(cr, sg)
	}
	hit, err := store.Import(ctx, key, body, maxArtifact, func() error {
		if sg != nil && !sg.Verify(d.Tag) {
			return errBadSignature
		}
		return nil
	})
	switch {
	case errors.Is(err, errBadSignature):
		x.reject("signature", fmt.Sprintf("remote cache %s sent an artifact for %s whose signature does not match; ignored, the task runs", x.s.Server(), taskID))
		return nil
	case errors.Is(err, cache.ErrOutsideLink):
		x.reject("outside-link", fmt.Sprintf("remote cache %s sent an artifact for %s with a symlink leading outside the task's outputs; ignored, the task runs (%v)", x.s.Server(), taskID, err))
		return nil
	case errors.Is(err, cache.ErrCorrupt):
		if ctx.Err() == nil {
			x.reject("corrupt", fmt.Sprintf("remote cache %s sent a damaged or truncated artifact for %s; ignored, the task runs (%v)", x.s.Server(), taskID, err))
		}
		return nil
	case err != nil:
		x.warnOnce("store", fmt.Sprintf("storing a remote artifact for %s: %v", taskID, err))
		return nil
	}
	x.count(func(s *wire.RemoteRun) { s.Hits++; s.BytesDown += cr.n })
	return hit
}

func (x *Session) reject(kind, msg string) {
	x.count(func(s *wire.RemoteRun) { s.Rejected++ })
	x.warnOnce(kind, msg)
}

func (x *Session) count(f func(*wire.RemoteRun)) {
	x.mu.Lock()
	f(&x.stats)
	x.mu.Unlock()
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Upload sends the entry file at path as key's artifact in the background.
// The file is opened now, so a later replacement cannot tear the upload.
func (x *Session) Upload(taskID, key, path string, durationMs int64) {
	if !x.write.Load() || x.off.Load() {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		x.warnOnce("open", fmt.Sprintf("%s: not uploaded to the remote cache: %v", taskID, err))
		return
	}
	x.pending.Add(1)
	x.uploads.Add(1)
	go func() {
		defer x.uploads.Done()
		defer x.pending.Add(-1)
		defer f.Close()
		select {
		case x.sem <- struct{}{}:
		case <-x.upCtx.Done():
			return
		}
		defer func() { <-x.sem }()
		if !x.ready(x.upCtx) || !x.write.Load() {
			return
		}
		n, err := x.upload(f, key, durationMs)
		if err != nil {
			if x.upCtx.Err() != nil {
				return
			}
			x.count(func(s *wire.RemoteRun) { s.UploadFailures++ })
			x.trouble(err)
			return
		}
		if n > 0 {
			x.count(func(s *wire.RemoteRun) { s.Uploads++; s.BytesUp += n })
		}
	}()
}

// upload returns the bytes sent, 0 when the server already held the id.
func (x *Session) upload(f *os.File, key string, durationMs int64) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	id := remoteHash(x.s.Namespace, key)
	if size >= headBeforePut {
		if ok, err := x.c.Exists(x.upCtx, id); err == nil && ok {
			return 0, nil
		}
	}
	tag := ""
	if x.s.Signature {
		sg := newSigner(x.s.Key, id, x.s.Team)
		if _, err := io.Copy(sg, io.NewSectionReader(f, 0, size)); err != nil {
			return 0, err
		}
		tag = sg.Tag()
	}
	if err := x.c.Put(x.upCtx, id, io.NewSectionReader(f, 0, size), size, durationMs, tag); err != nil {
		return 0, err
	}
	return size, nil
}

// Finish waits for the uploads still running, up to the timeout, and
// returns what the run did with the remote.
func (x *Session) Finish() wire.RemoteRun {
	// Downloads for tasks that never asked (blocked, skipped) stop here.
	x.fetchStop()
	x.fetching.Wait()
	done := make(chan struct{})
	go func() { x.uploads.Wait(); close(done) }()
	t := time.NewTimer(x.s.Timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		left := x.pending.Load()
		x.upCancel()
		<-done
		x.count(func(s *wire.RemoteRun) { s.UploadsPending = int(left) })
		x.warnOnce("pending", fmt.Sprintf("remote cache %s: %d uploads not finished within %s were abandoned", x.s.Server(), left, x.s.Timeout))
	}
	x.upCancel()
	// A status request still in flight ends here, without a warning, so
	// nothing warns once the run has been summarised.
	x.statusStop()
	<-x.statusDone
	x.c.Close()
	x.mu.Lock()
	defer x.mu.Unlock()
	out := x.stats
	out.Write = out.Write && x.write.Load()
	out.Status = x.statusNow()
	return out
}

func (x *Session) statusNow() string {
	if k, ok := x.offKind.Load().(string); ok && x.status == wire.RemoteEnabled {
		return k
	}
	return x.status
}

// Probe checks the remote for vx cache status: status (reachable,
// enabled, round trip) then a HEAD of an id nothing is stored under
// (authorised: a 404, not a 401/403).
func Probe(ctx context.Context, s *Settings) *wire.RemoteStatus {
	st := s.Status()
	st.Checked = true
	c := newClient(s)
	defer c.Close()
	status, rtt, err := c.Status(ctx)
	st.RTTMs = rtt.Milliseconds()
	if err != nil {
		st.Status, st.Message = statusOf(err), err.Error()
		var e *requestError
		st.Reachable = errors.As(err, &e) && e.Code != 0
		return st
	}
	st.Reachable, st.Status, st.Enabled = true, status, status == wire.RemoteEnabled
	if _, err := c.Exists(ctx, remoteHash(s.Namespace, "vx-probe")); err != nil {
		st.Message = err.Error()
		var e *requestError
		if errors.As(err, &e) && (e.Kind == wire.RemoteUnauthorized || e.Kind == wire.RemoteForbidden) {
			st.Status = e.Kind
		}
		return st
	}
	st.Authorized = true
	if !st.Enabled {
		st.Message = fmt.Sprintf("the server reports status %q", status)
	}
	return st
}

// Holds asks HEAD for each key (16 at a time) and returns those the server
// holds: a dry run's prediction, made without downloading anything. The
// first failure that is not a plain answer (unreachable, refused) stops
// the asking; what was learnt so far is returned.
func Holds(ctx context.Context, s *Settings, keys []string) map[string]bool {
	c := newClient(s)
	defer c.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, fetchWorkers)
	for _, key := range keys {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ok, err := c.Exists(ctx, remoteHash(s.Namespace, key))
			if err != nil {
				cancel()
				return
			}
			if ok {
				mu.Lock()
				out[key] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}
