// Package watch is vxd's side of the change journal: the watch of the
// workspace's directories, the numbered feed of their changes, the
// barrier before an answer, and the descriptor budget of the watches. Its
// one description is the doc of daemon/journal.
package watch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Journal is vxd's change journal (the watch, the numbered feed, the
// barrier, the epochs): see the package journal's doc.

// defaultJournalLimit bounds the paths one epoch remembers.
const defaultJournalLimit = 50000

// maxJournalDirs bounds the directories the journal watches: the bound
// of a saved listing (a listing the journal vouches for must be saved).
const maxJournalDirs = hashing.MaxWatchedDirs

// journalLimitEnv sets journalLimit (1 to 10,000,000).
const journalLimitEnv = "VXD_JOURNAL_LIMIT"

// Journal watches one workspace.
type Journal struct {
	root   string
	barDir string
	w      *fsnotify.Watcher
	limit  int
	log    zerolog.Logger
	inst   string // this process's marker-name prefix

	mu      sync.Mutex
	epoch   string // "" while not ready or stopped
	reason  string // why epoch is "", or why the last epoch ended
	broken  bool   // a directory could not be watched: no epoch until restart
	over    bool   // more than limit paths changed: the epoch ends after this event
	seq     uint64
	changed map[string]uint64 // slash path relative to root → seq of its last event
	dirs    map[string]int    // watched directories (absolute) → descriptors the watch holds
	// budget counts the descriptors the watches hold, where they are
	// descriptors (budget.go); dirs holds each watch's share.
	budget  *Budget
	waiters map[string]chan struct{}
	nextBar uint64
	// rootID is the directory the root named when the epoch began (a
	// root that is a link may be pointed elsewhere: the watches stay on
	// the old tree).
	rootID [2]uint64
}

func Limit() (int, error) {
	v := os.Getenv(journalLimitEnv)
	if v == "" {
		return defaultJournalLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 10_000_000 {
		return 0, fmt.Errorf("%s=%q is not a number of paths (use 1 to 10000000, or unset it for %d)", journalLimitEnv, v, defaultJournalLimit)
	}
	return n, nil
}

// startJournal watches the workspace; it is ready once every directory is
// watched (its loop does that first), answering "cannot prove" until then.
func Start(ctx context.Context, root string, limit int, budget *Budget, log zerolog.Logger) (*Journal, error) {
	j, err := newJournal(root, limit, budget, log)
	if err != nil {
		return nil, err
	}
	go j.loop(ctx)
	return j, nil
}

// newJournal sets the journal up without starting its loop. Its watches
// are counted in budget (nil: not counted; see budget.go).
func newJournal(root string, limit int, budget *Budget, log zerolog.Logger) (*Journal, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	j := &Journal{root: root, barDir: layout.JournalBarriers(root), w: fw, limit: limit, log: log, inst: randomID()[:8],
		reason: "the journal is still adding its watches", changed: map[string]uint64{}, dirs: map[string]int{}, waiters: map[string]chan struct{}{},
		budget: budget}
	// Leftover markers of an earlier vxd go; ours are new names.
	_ = os.RemoveAll(j.barDir)
	if err := os.MkdirAll(j.barDir, 0o700); err != nil {
		fw.Close()
		return nil, err
	}
	if err := addWatch(fw, j.barDir); err != nil {
		fw.Close()
		return nil, err
	}
	return j, nil
}

func (j *Journal) Close() error {
	j.mu.Lock()
	j.epoch, j.reason = "", "vxd is stopping"
	j.mu.Unlock()
	return j.w.Close()
}

func randomID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (j *Journal) loop(ctx context.Context) {
	j.begin("vxd started")
	j.follow(ctx, j.w.Events, j.w.Errors)
}

// follow handles the watch's events and errors until ctx ends or they close.
func (j *Journal) follow(ctx context.Context, events <-chan fsnotify.Event, errs <-chan error) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			j.handle(ev)
		case err, ok := <-errs:
			if !ok {
				return
			}
			reason := "the file watch failed: " + err.Error()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				reason = "the file watch queue overflowed"
			}
			j.log.Warn().Str("reason", reason).Msg("change journal: starting a new epoch")
			j.begin(reason)
		}
	}
}

// begin ends the current epoch, watches every directory again (missed
// events may have created some) and starts a new epoch. Waiting barriers
// are released: their answer says the epoch changed.
func (j *Journal) begin(reason string) {
	j.mu.Lock()
	if j.broken {
		j.mu.Unlock()
		return // stopped until vxd restarts
	}
	j.epoch, j.reason = "", reason
	for name, ch := range j.waiters {
		close(ch)
		delete(j.waiters, name)
	}
	// Every old watch goes first: a renamed directory's children are
	// watched under their old names, and adding the new name of the same
	// inode would share the watch that removing the old name ends.
	j.unwatchAll()
	j.rootID = dirID(j.root)
	j.mu.Unlock()
	if err := j.addTree(j.root, false); err != nil {
		j.stop(err)
		return
	}
	j.mu.Lock()
	if !j.broken {
		j.seq, j.changed, j.over = 0, map[string]uint64{}, false
		j.epoch = randomID()
	}
	j.mu.Unlock()
}

// dirID is the device and inode path names (following links); zero when
// it cannot be stat'ed.
func dirID(path string) [2]uint64 {
	var st hashing.Stat
	if err := hashing.StatPath(path, &st); err != nil {
		return [2]uint64{}
	}
	return [2]uint64{st.Dev, st.Ino}
}

// checkRoot gives up until vxd restarts when the root no longer names the
// directory the watches are on (every change in the tree it names now
// would go unreported); it reports whether the journal is stopped.
func (j *Journal) checkRoot() bool {
	j.mu.Lock()
	moved := j.epoch != "" && dirID(j.root) != j.rootID
	if moved {
		j.epoch, j.reason, j.broken = "", "the workspace root "+j.root+" now names another directory than the one watched (restart vxd)", true
	}
	broken := j.broken
	j.mu.Unlock()
	if moved {
		j.log.Warn().Str("root", j.root).Msg("change journal stopped: the workspace root names another directory; vx runs stat every file")
	}
	return broken
}

// errStopped ends a walk adding watches to a journal stopped meanwhile.
var errStopped = errors.New("the change journal stopped")

// stop gives up until vxd restarts: some directory is not watched, or
// the tree is too large for the descriptor budget. The watches go: they
// prove nothing now, and may hold descriptors.
func (j *Journal) stop(err error) {
	if errors.Is(err, errStopped) {
		return // already stopped, with its reason
	}
	j.log.Warn().Err(err).Msg("change journal stopped: vx runs stat every file")
	reason := "a directory could not be watched: " + err.Error()
	if errTooLarge(err) {
		reason = err.Error()
	}
	j.mu.Lock()
	j.epoch, j.reason, j.broken = "", reason, true
	j.unwatchAll()
	j.mu.Unlock()
}

// unwatchAll removes every watch; j.mu is held.
func (j *Journal) unwatchAll() {
	for d, cost := range j.dirs {
		_ = j.w.Remove(d)
		j.budget.Give(cost)
	}
	j.dirs = map[string]int{}
}

func (j *Journal) rel(abs string) (string, bool) {
	if abs == j.root {
		return ".", true
	}
	rest, ok := strings.CutPrefix(abs, j.root+string(filepath.Separator))
	if !ok {
		return "", false
	}
	return filepath.ToSlash(rest), true
}

// addTree watches dir and every covered directory under it; with record,
// every path found is counted as changed (it may have been created before
// its directory was watched).
func (j *Journal) addTree(dir string, record bool) error {
	start := dir
	if dir == j.root {
		// A root entered through a link: walked as the tree it names.
		start = hashing.WalkStart(dir)
	}
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if p == start {
			p = dir
		}
		if err != nil {
			if p == dir || errors.Is(err, fs.ErrNotExist) {
				return nil // gone again: its removal is an event of its parent
			}
			return err
		}
		rel, ok := j.rel(p)
		if !ok || !wire.JournalCovers(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if record {
			j.record(rel)
		}
		if !d.IsDir() {
			return nil
		}
		j.mu.Lock()
		n, broken := len(j.dirs), j.broken
		j.mu.Unlock()
		if broken {
			return errStopped
		}
		if n >= maxJournalDirs {
			return fmt.Errorf("more than %d directories", maxJournalDirs)
		}
		cost, err := j.reserve(p)
		if err != nil {
			return err
		}
		// Watched before WalkDir reads it: an entry made after this is an
		// event, one made before is read.
		if err := addWatch(j.w, p); err != nil {
			j.budget.Give(cost)
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return fmt.Errorf("%s: %w", rel, err)
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.broken {
			// Stopped meanwhile (the configuration watcher needed the
			// descriptors): the watch goes too.
			_ = j.w.Remove(p)
			j.budget.Give(cost)
			return errStopped
		}
		j.dirs[p] = cost
		return nil
	})
}

// record counts a change of rel; past the limit the epoch ends.
func (j *Journal) record(rel string) {
	j.mu.Lock()
	if j.epoch == "" && j.broken {
		j.mu.Unlock()
		return
	}
	j.seq++
	j.changed[rel] = j.seq
	if len(j.changed) > j.limit {
		j.over = true
	}
	j.mu.Unlock()
}

func (j *Journal) handle(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == j.barDir {
		if ev.Has(fsnotify.Create) {
			j.mu.Lock()
			if ch, ok := j.waiters[ev.Name]; ok {
				close(ch)
				delete(j.waiters, ev.Name)
			}
			j.mu.Unlock()
		}
		return
	}
	rel, ok := j.rel(ev.Name)
	if !ok || !wire.JournalCovers(rel) {
		return
	}
	j.mu.Lock()
	_, watched := j.dirs[ev.Name]
	broken := j.broken
	j.mu.Unlock()
	if broken {
		return
	}
	if watched && ev.Has(fsnotify.Rename) {
		j.unwatch(ev.Name)
		j.begin("the directory " + rel + " was renamed")
		return
	}
	if watched && ev.Has(fsnotify.Remove) {
		j.unwatch(ev.Name)
	}
	j.record(rel)
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// A name came or went: its directory's listing changed.
		j.record(parentRel(rel))
	}
	if err := j.countEntry(ev); err != nil {
		j.stop(err)
		return
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() {
			if err := j.addTree(ev.Name, true); err != nil {
				j.stop(err)
				return
			}
		}
	}
	j.mu.Lock()
	over := j.over
	j.mu.Unlock()
	if over {
		j.begin(fmt.Sprintf("more than %d paths changed", j.limit))
	}
}

func parentRel(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// unwatch forgets dir and the directories under it.
func (j *Journal) unwatch(dir string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	prefix := dir + string(filepath.Separator)
	for d, cost := range j.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(j.dirs, d)
			j.budget.Give(cost)
			_ = j.w.Remove(d)
		}
	}
}

// barrier returns once every event queued before it was called has been
// handled (or the epoch ended meanwhile).
func (j *Journal) barrier(ctx context.Context) error {
	j.mu.Lock()
	j.nextBar++
	name := filepath.Join(j.barDir, j.inst+"-"+strconv.FormatUint(j.nextBar, 10))
	ch := make(chan struct{})
	j.waiters[name] = ch
	j.mu.Unlock()
	defer func() {
		j.mu.Lock()
		delete(j.waiters, name)
		j.mu.Unlock()
		_ = os.Remove(name)
	}()
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		// Someone removed the markers' directory: make and watch it again.
		if err = os.MkdirAll(j.barDir, 0o700); err == nil {
			if err = addWatch(j.w, j.barDir); err == nil {
				f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			}
		}
	}
	if err != nil {
		return err
	}
	f.Close()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait bounds a barrier: past it the answer is "cannot prove".
const wait = 2 * time.Second

// Since answers what changed after the token (epoch, seq); ask false
// answers only the current token. It waits for the barrier at most wait.
func (j *Journal) Since(ctx context.Context, epoch string, seq uint64, ask bool) wire.Changes {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ans := wire.Changes{Root: j.root}
	// Before the barrier too: a marker made in the tree the root names
	// now is in no watched directory, and would wait out wait.
	if j.checkRoot() {
		j.mu.Lock()
		ans.Reason = j.reason
		j.mu.Unlock()
		return ans
	}
	if err := j.barrier(ctx); err != nil {
		ans.Reason = "the file watch did not catch up: " + err.Error()
		return ans
	}
	_ = j.checkRoot()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.epoch == "" {
		ans.Reason = j.reason
		return ans
	}
	ans.Epoch, ans.Seq = j.epoch, j.seq
	switch {
	case !ask:
		ans.Reason = "no token was given"
	case epoch != j.epoch:
		ans.Reason = "the journal began a new epoch since that token (latest: " + j.reason + ")"
	case seq > j.seq:
		ans.Reason = "the token is ahead of the journal"
	default:
		var out []string
		for p, s := range j.changed {
			if s > seq {
				out = append(out, p)
			}
		}
		if len(out) > wire.MaxChangedPaths {
			ans.Reason = fmt.Sprintf("%d paths changed (more than %d)", len(out), wire.MaxChangedPaths)
			return ans
		}
		sort.Strings(out)
		ans.Complete, ans.Changed = true, out
	}
	return ans
}

// Stopped reports whether the journal gave up until vxd restarts.
func (j *Journal) Stopped() bool {
	if j == nil {
		return true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.broken
}

// Describe is the journal's state for vxd status.
func (j *Journal) Describe() string {
	if j == nil {
		return "not started: vx runs stat every file"
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.epoch == "" {
		return "not proving (" + j.reason + "): vx runs stat every file"
	}
	held := ""
	if j.budget.counts() {
		mine := 0
		for _, cost := range j.dirs {
			mine += cost
		}
		used, budget := j.budget.held()
		held = fmt.Sprintf(" (holding %d descriptors; vxd's watches %d of the %d they may)", mine, used, budget)
	}
	return fmt.Sprintf("watching %d of at most %d directories%s; %d paths changed in this epoch (began: %s)",
		len(j.dirs), maxJournalDirs, held, len(j.changed), j.reason)
}
