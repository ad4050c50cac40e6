package runner

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/journal"
)

// earlyJournal is vxd's change journal opened as soon as the run has its
// answer (OpenJournal), so that the workspace's plugins take their matched
// files' listing and hashes from it while the workspace loads, and the
// run the same Changes and listing after.
type earlyJournal struct {
	opened  chan struct{} // closed once c and how are set
	c       *journal.Changes
	how     string
	list    sync.Once
	files   []string
	listErr error
}

// OpenJournal opens vxd's change journal (src) for the run, attached to
// the early stat cache, on a goroutine of its own; nothing when e is nil,
// src is nil, or a daemon is not up (no early stat cache to attach to).
func (e *Early) OpenJournal(ctx context.Context, src journal.ChangeSource) {
	if e == nil || src == nil || e.prestat || e.journal != nil {
		return
	}
	j := &earlyJournal{opened: make(chan struct{})}
	e.journal = j
	go func() {
		defer close(j.opened)
		j.c, j.how = journal.OpenChanges(ctx, e.root, src)
		j.c.Attach(e.hasher)
	}()
}

// openedJournal is the journal OpenJournal opened for root, with why it
// goes the way it goes; ok is false when none was opened early.
func (e *Early) openedJournal(root string) (c *journal.Changes, how string, ok bool) {
	if e == nil || e.journal == nil || e.root != root {
		return nil, "", false
	}
	<-e.journal.opened
	return e.journal.c, e.journal.how, true
}

// journalFiles is the run's file listing through c (Changes.ListFiles),
// made once whether the plugins or the keys ask first.
func (e *Early) journalFiles(ctx context.Context, c *journal.Changes) ([]string, error) {
	j := e.journal
	if j == nil || j.c != c {
		return c.ListFiles(ctx, e.root)
	}
	j.list.Do(func() { j.files, j.listErr = c.ListFiles(ctx, e.root) })
	return j.files, j.listErr
}

// errNoJournal: the journal did not answer; the plugins stat their files.
var errNoJournal = errors.New("no change journal")

// JournalListing answers, for the workspace's plugins, the run's listing
// through vxd's journal (ok false when the journal gave no answer) and
// the run's content hash of a listed file (its journal proves a file
// unchanged without a stat, and notes what it stats for the next run;
// an error when the journal gave no answer); both nil when OpenJournal
// opened none.
func (e *Early) JournalListing(ctx context.Context) (files func() ([]string, bool), hash func(rel string) (string, error)) {
	if e == nil || e.journal == nil {
		return nil, nil
	}
	files = func() ([]string, bool) {
		c, _, _ := e.openedJournal(e.root)
		if c == nil {
			return nil, false
		}
		all, err := e.journalFiles(ctx, c)
		return all, err == nil
	}
	hash = func(rel string) (string, error) {
		if c, _, _ := e.openedJournal(e.root); c == nil {
			return "", errNoJournal
		}
		// Most are proven: asked by directory and name, no absolute
		// path is made for them (HashFile would cut it back to rel).
		i := strings.LastIndexByte(rel, '/')
		if h, ok := e.hasher.ProvenHash(rel[:max(i, 0)], rel[i+1:]); ok {
			return h, nil
		}
		return e.hasher.HashFile(hashing.JoinSlash(e.root, rel))
	}
	return files, hash
}
