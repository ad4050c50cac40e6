package runner

import (
	"context"
	"os"
	"sync"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/protocol/layout"
)

// Early is the part of a run's preparation that needs nothing but the
// workspace root: the file listing, the stat cache and the history. The
// command line starts it as soon as it has found the root, so that these
// go on while the workspace loads (a fully cached run of 1,000 packages
// spends a third of its time loading manifests, on both cores at most
// half the time). Prepare and Execute take what it made when its root is
// the model's; what they never take, Close releases.
type Early struct {
	root string
	wg   sync.WaitGroup // the listing and the stat cache
	swg  sync.WaitGroup // the output stamps: only Execute waits for them
	hwg  sync.WaitGroup // the history: the keys need not wait for it

	files []string // ListFilesCached; nil where a daemon is up
	// prestat: no daemon is up, whose journal would answer for the inputs
	// (startPrestat).
	prestat bool
	listed  error

	hasher *hashing.Hasher
	stamps *outputStamps // the output stamps file, decoded; nil once taken

	hist    *history.Store // nil when not asked for, failed, or taken
	histErr error
	peaks   map[string]int64

	journal *earlyJournal // nil unless OpenJournal opened one
}

// StartEarly starts listing root's files and loading its stat cache, and,
// with openHistory, opening its history for writing and reading each
// task's peak RSS from it. It starts nothing (nil) in a workspace where
// vx never ran, and opens no history that does not exist yet: a command
// line refused once the workspace loads (an unknown task, a cycle) leaves
// no trace, and a dry run asks for no history at all.
func StartEarly(ctx context.Context, root string, logger zerolog.Logger, openHistory bool) *Early {
	if st, err := os.Stat(layout.Dir(root)); err != nil || !st.IsDir() {
		return nil
	}
	if _, err := os.Stat(history.Path(root)); err != nil {
		openHistory = false
	}
	e := &Early{root: root}
	// Where a daemon is up, the run asks it what changed and the listing
	// is checked against its answer (Prepare): none is made here.
	_, daemonErr := os.Stat(layout.Discovery(root))
	if daemonErr != nil {
		e.prestat = true
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.files, _, e.listed = hashing.ListFilesCached(ctx, root, layout.FileList(root))
		}()
	}
	if daemonErr == nil {
		// The journal's answer may prove every input: the stat cache is
		// read only if a file needs it.
		e.hasher = hashing.NewLazyHasher(layout.StatCache(root))
	} else {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.hasher = hashing.NewHasher(layout.StatCache(root))
		}()
	}
	// Decoding 1,000 tasks' stamps is a few ms Execute no longer waits
	// for, nor the keys: only Execute takes them.
	e.swg.Add(1)
	go func() {
		defer e.swg.Done()
		e.stamps = loadStamps(root)
	}()
	if openHistory {
		e.hwg.Add(1)
		go func() {
			defer e.hwg.Done()
			e.hist, e.histErr = history.Open(ctx, history.Path(root), &history.Options{Logger: logger})
			if e.histErr == nil {
				e.peaks = peaksFrom(ctx, e.hist)
			}
		}()
	}
	return e
}

// startPrestat stats the inputs the stat cache knows (hashing/prestat.go)
// from when the model has loaded until the hashing workers start: the
// graph is built in between on one core, the other mostly idle. Started
// any earlier it took the cores the workspace's load needed.
func (e *Early) startPrestat(root string) {
	if e == nil || e.root != root || !e.prestat {
		return
	}
	go func() {
		e.wg.Wait()
		e.hasher.Prestat(root)
	}()
}

// wait is the early work once the listing and the stat cache are done, or
// nil when there is none for root. The history may still be opening
// (opening checkpoints what the last run left in its WAL): waitHistory
// waits for it too.
func (e *Early) wait(root string) *Early {
	if e == nil || e.root != root {
		return nil
	}
	e.wg.Wait()
	return e
}

// Listing answers the file listing made early (ok false when none was:
// a daemon is up, or no early start), for the workspace's plugins to
// match their globs against without listing again.
func (e *Early) Listing() (files []string, ok bool, err error) {
	if e == nil || !e.prestat {
		return nil, false, nil
	}
	e.wg.Wait()
	return e.files, e.listed == nil, e.listed
}

// waitHistory is wait, the history's opening and its peaks included.
func (e *Early) waitHistory(root string) *Early {
	if e = e.wait(root); e != nil {
		e.hwg.Wait()
	}
	return e
}

// takeHistory hands the opened history (or why it did not open) to
// Execute, which closes it; ok is false when none was opened early.
func (e *Early) takeHistory(root string) (h *history.Store, ok bool, err error) {
	e = e.waitHistory(root)
	if e == nil || (e.hist == nil && e.histErr == nil) {
		return nil, false, nil
	}
	h, err = e.hist, e.histErr
	e.hist, e.histErr = nil, nil
	return h, true, err
}

// takeStamps hands the decoded output stamps to Execute, or nil when none
// were loaded early for root (Execute then loads them itself).
func (e *Early) takeStamps(root string) *outputStamps {
	e = e.wait(root)
	if e == nil {
		return nil
	}
	e.swg.Wait()
	s := e.stamps
	e.stamps = nil
	return s
}

// Close waits for the early work and closes the history if Execute did
// not take it.
func (e *Early) Close() {
	if e == nil {
		return
	}
	e.wg.Wait()
	e.hasher.StopPrestat()
	if e.journal != nil {
		<-e.journal.opened
	}
	e.swg.Wait()
	e.hwg.Wait()
	if e.hist != nil {
		e.hist.Close()
		e.hist = nil
	}
}

// StatListed lstats files of the early listing (listing order) for the
// workspace's plugins, marking those the stat cache holds as recorded, so
// that the run's inputs among them are not stat'ed again (nil when
// nothing was started early, or a daemon answers for the files).
func (e *Early) StatListed() func(files []string) ([]hashing.Stat, []bool) {
	if e == nil || !e.prestat {
		return nil
	}
	return func(files []string) ([]hashing.Stat, []bool) {
		e.wg.Wait()
		return e.hasher.StatListed(e.root, files)
	}
}
