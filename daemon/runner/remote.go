package runner

import (
	"context"
	"os"
	"path/filepath"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/remotecache"
	"github.com/vzn/vx/protocol/wire"
)

// remote is a run's side of the remote cache and of --cache: which caches
// it reads and writes, and the scratch store that stands in for the local
// cache when the run may not write it.
type remote struct {
	mode    remotecache.Mode
	sess    *remotecache.Session // nil: no remote configured, or not usable
	scratch *cache.Store
	dir     string // the scratch store's directory
	// prefetched holds the keys whose download started with the run;
	// written before the workers start, only read after.
	prefetched map[string]bool
}

// startRemote resolves the remote cache settings and opens the run's
// session. A remote that cannot be used is one warning, never an error.
func (r *run) startRemote(ctx context.Context) {
	r.rc.mode = remotecache.DefaultMode()
	if r.o.Cache != nil {
		r.rc.mode = *r.o.Cache
	}
	s, err := remotecache.Resolve(r.p.Model, r.p.Env)
	if s != nil {
		r.p.Masker.Add(s.Secrets()...)
	}
	if err != nil {
		r.warn("remote cache not used: %v", err)
		return
	}
	if s == nil || !(r.rc.mode.RemoteRead || r.rc.mode.RemoteWrite) {
		return
	}
	r.rc.sess = remotecache.Start(ctx, s, r.rc.mode, func(msg string) { r.warn("%s", msg) })
	if r.o.Force || !r.rc.mode.RemoteRead {
		return
	}
	// Every local miss is asked for at once, ahead of the workers.
	var wanted []remotecache.Wanted
	r.rc.prefetched = map[string]bool{}
	for _, n := range r.p.Graph.Executable() {
		key := r.p.Keys[n.ID]
		if !n.Def.Cache || r.rc.mode.LocalRead && r.store.Has(key) {
			continue
		}
		wanted = append(wanted, remotecache.Wanted{TaskID: n.ID, Key: key})
		r.rc.prefetched[key] = true
	}
	if len(wanted) > 0 {
		if st := r.writeStore(); st != nil {
			r.rc.sess.Prefetch(st, wanted)
		}
	}
}

// writeStore is where entries produced or downloaded by this run go: the
// local cache, or a scratch store when --cache leaves local unwritten.
func (r *run) writeStore() *cache.Store {
	if r.rc.mode.LocalWrite {
		return r.store
	}
	if r.rc.scratch == nil {
		dir, err := os.MkdirTemp(VXDir(r.p.Model.Root), "scratch-")
		if err == nil {
			r.rc.scratch, err = cache.Open(dir, &cache.Options{Logger: r.log})
		}
		if err != nil {
			r.warn("opening a scratch cache: %v", err)
			return nil
		}
		r.rc.dir = dir
	}
	return r.rc.scratch
}

// fetchRemote answers a local miss from the remote; nil on a miss.
func (r *run) fetchRemote(ctx context.Context, taskID, key string) *cache.Hit {
	if r.rc.sess == nil {
		return nil
	}
	st := r.writeStore()
	if st == nil {
		return nil
	}
	return r.rc.sess.Fetch(ctx, st, taskID, key)
}

// uploadRemote queues an entry the run just stored.
func (r *run) uploadRemote(taskID, key string, e cache.Entry) {
	if r.rc.sess != nil {
		r.rc.sess.Upload(taskID, key, e.Path, e.DurationMs)
	}
}

// finishRemote waits for uploads (bounded by the remote's timeout) and
// removes the scratch store.
func (r *run) finishRemote() *wire.RemoteRun {
	var out *wire.RemoteRun
	if r.rc.sess != nil {
		st := r.rc.sess.Finish()
		out = &st
	}
	if r.rc.dir != "" {
		if err := os.RemoveAll(r.rc.dir); err != nil {
			r.warn("removing %s: %v", filepath.Base(r.rc.dir), err)
		}
	}
	return out
}

// recordRemote puts the run's remote activity in its summary and history.
func (r *run) recordRemote(ctx context.Context, sum *wire.RunSummary, rr *wire.RemoteRun) {
	if rr == nil {
		return
	}
	sum.Remote = rr
	if err := r.hist.RecordRemote(context.WithoutCancel(ctx), r.runID, *rr); err != nil {
		r.warn("recording remote cache activity of run %s: %v", r.runID, err)
	}
}

// remotePredictions asks the remote cache which of the local misses it
// holds, for a dry run; nil without a usable remote.
func remotePredictions(ctx context.Context, p *Prepared, store *cache.Store, force bool) map[string]bool {
	if force {
		return nil
	}
	s, err := remotecache.Resolve(p.Model, p.Env)
	if s == nil || err != nil {
		return nil
	}
	p.Masker.Add(s.Secrets()...)
	var keys []string
	for _, n := range p.Graph.Executable() {
		if key := p.Keys[n.ID]; n.Def.Cache && !store.Has(key) {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return remotecache.Holds(ctx, s, keys)
}

// stamp remembers outputs vx just wrote for key, unless the run may not
// write the local cache: then nothing local may later claim them as a hit.
func (r *run) stamp(taskID, key, dir string, files []string, log []byte) {
	if r.rc.mode.LocalWrite {
		r.stamps.record(taskID, key, dir, files, log)
	} else {
		r.stamps.forget(taskID)
	}
}
