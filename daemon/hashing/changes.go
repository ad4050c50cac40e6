package hashing

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// With vxd up, a run need not stat what vxd's change journal proves
// unchanged. After the keys are computed a run saves, in .vx/journal, the
// journal token it asked at (taken after vxd's barrier, before any file was
// looked at) with the hash of every input it looked at since, and whether
// the saved listing held. The next run asks vxd what changed since that
// token: when the answer is complete, a saved hash whose path did not
// change is the file's content without a stat, and the saved listing holds
// without statting the directories that did not change (paths the journal
// does not cover, .git's index and configuration among them, are statted
// as always). Any other answer (no daemon, another epoch, another version
// or root, a time-out) is a silent fallback to the stat of every file.
//
// The state is self-contained (each hash is the one read after its token)
// so concurrent runs, or runs without the daemon in between, cannot make
// it wrong: the last complete save wins, and a journal answer covers
// everything since its token. Files with more than one link are never
// saved (a write through another link is not reported for this path).

// ChangeSource asks vxd what changed since a token (epoch "" asks only the
// current token). It never starts a daemon.
type ChangeSource func(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error)

// changesWait bounds the question: past it the run stats every file.
const changesWait = time.Second

const journalMagic = "vxjrnl1\n"

// maxJournalEntries bounds the hashes a state holds.
const maxJournalEntries = 1 << 21

type fileID struct {
	ino, size   uint64
	mtime, ctim int64
}

func fileIDOf(st *Stat) fileID {
	return fileID{ino: st.Ino, size: uint64(st.Size), mtime: st.Mtime, ctim: st.Ctime}
}

type journalState struct {
	epoch     string
	seq       uint64
	listingOK bool   // the listing file listing was valid at the token
	listing   fileID // which file that was
	hashes    map[string]string
}

// Changes is one run's use of vxd's change journal; nil (no source, or
// no token to keep) is the plain path.
type Changes struct {
	root     string
	path     string
	token    wire.Changes // the answer: its token is what this run saves
	complete bool         // the answer proves prior's unchanged hashes
	prior    *journalState
	changed  map[string]bool

	mu       sync.Mutex
	trusted  map[string]string // slash path relative to root → hash proven unchanged
	verified map[string]string // absolute path → hash read this run
	dirty    bool
	listing  fileID
	listOK   bool
	// listStamps are the stats of the run's listing (listing) that the
	// journal does not watch: git's index, configuration, ignore files.
	listStamps []Stamp
	// unwatched are the inputs read that the journal cannot vouch for
	// (outside its view, or with other links), by absolute path.
	unwatched map[string]Stamp
}

// OpenChanges loads the saved state and asks src what changed since it;
// nil when src is nil or no journal answers with a token. The string says
// which way the run goes and why (for the debug log).
func OpenChanges(ctx context.Context, root string, src ChangeSource) (*Changes, string) {
	if src == nil {
		return nil, "no change journal asked"
	}
	path := layout.JournalState(root)
	prior := loadJournal(path, root)
	epoch, seq := "", uint64(0)
	if prior != nil {
		epoch, seq = prior.epoch, prior.seq
	}
	ctx, cancel := context.WithTimeout(ctx, changesWait)
	defer cancel()
	ans, err := src(ctx, epoch, seq)
	switch {
	case err != nil:
		return nil, "stat every file: " + err.Error()
	case ans.Version != version.Version:
		return nil, "stat every file: vxd is version " + ans.Version + ", this vx " + version.Version
	case filepath.Clean(ans.Root) != filepath.Clean(root):
		return nil, "stat every file: vxd serves " + ans.Root
	case ans.Epoch == "":
		return nil, "stat every file: " + ans.Reason
	}
	c := &Changes{root: root, path: path, token: *ans, prior: prior, trusted: map[string]string{}, verified: map[string]string{}}
	c.complete = prior != nil && ans.Complete && ans.Epoch == prior.epoch
	if !c.complete {
		c.dirty = true
		if prior == nil {
			return c, "stat every file: no saved journal state"
		}
		return c, "stat every file: " + ans.Reason
	}
	c.changed = make(map[string]bool, len(ans.Changed))
	for _, p := range ans.Changed {
		c.changed[p] = true
	}
	if ans.Epoch != prior.epoch || ans.Seq != prior.seq {
		c.dirty = true
	}
	// The saved hashes, less what changed, are the proven ones (keyed by
	// relative path: no second map of absolute paths to build).
	for _, rel := range ans.Changed {
		if _, ok := prior.hashes[rel]; ok {
			delete(prior.hashes, rel)
			c.dirty = true
		}
	}
	c.trusted = prior.hashes
	return c, fmt.Sprintf("journal: %d paths changed, %d files proven unchanged", len(ans.Changed), len(c.trusted))
}

// UseChanges makes h answer proven-unchanged files from c without a stat,
// and tell c what it read.
func (h *Hasher) UseChanges(c *Changes) { h.changes = c }

func (c *Changes) trustedHash(abs string) (string, bool) {
	if c == nil {
		return "", false
	}
	rel, ok := strings.CutPrefix(abs, c.root)
	if !ok || len(rel) < 2 || rel[0] != filepath.Separator {
		return "", false
	}
	h, ok := c.trusted[filepath.ToSlash(rel[1:])]
	return h, ok
}

// read notes a hash HashFile read (or took from the stat cache) after the
// token: the next run may take it unless the journal says it changed.
func (c *Changes) read(abs string, st *Stat, sum string) {
	if c == nil {
		return
	}
	if st.Nlink != 1 || !Covered(c.root, abs) {
		// Neither may the next run take from the journal: no watch
		// reports a write to it (a file named node_modules is listed,
		// and no event is counted for it).
		c.mu.Lock()
		if c.unwatched == nil {
			c.unwatched = map[string]Stamp{}
		}
		c.unwatched[abs] = stampOfStat(abs, st)
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.verified[abs] = sum
	c.dirty = true
	c.mu.Unlock()
}

// unchanged reports whether the journal's answer proves the absolute path p
// unchanged since the saved token.
func (c *Changes) unchanged(p string) bool {
	rel, ok := relSlash(c.root, p)
	return ok && wire.JournalCovers(rel) && !c.changed[rel]
}

// ListFiles is ListFilesCached, with the saved listing's directories taken
// from the journal when it proves them unchanged.
func (c *Changes) ListFiles(ctx context.Context, root string) ([]string, error) {
	path := layout.FileList(root)
	if c == nil {
		files, _, err := ListFilesCached(ctx, root, path)
		return files, err
	}
	var held []Stamp
	keep := func(stats []Stamp) { held = unwatchedOf(c.root, stats) }
	defer func() {
		if c.listOK {
			c.listStamps = held
		}
	}()
	if c.complete && c.prior.listingOK {
		if files, id, ok := c.loadTrustedListing(path, keep); ok {
			c.listing, c.listOK = id, true
			return files, nil
		}
	}
	var before, after Stat
	errBefore := StatPath(path, &before)
	files, reused, saved, err := listFilesCached(ctx, root, path, keep)
	switch {
	case err != nil:
	case saved != nil:
		// Saved by this run from stats it took after the token: as good
		// as one the check reused (listFilesCached stat'ed it after).
		c.listing, c.listOK = *saved, true
	case reused && errBefore == nil && StatPath(path, &after) == nil && fileIDOf(&before) == fileIDOf(&after):
		// The same file before and after: the listing the check reused.
		c.listing, c.listOK = fileIDOf(&after), true
	}
	return files, err
}

// loadTrustedListing reads the saved listing the last run found valid
// (the same file: one open, its fstat and its read).
func (c *Changes) loadTrustedListing(path string, keep func([]Stamp)) ([]string, fileID, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileID{}, false
	}
	defer f.Close()
	var st Stat
	if err := fstat(f, &st); err != nil || fileIDOf(&st) != c.prior.listing {
		return nil, fileID{}, false
	}
	raw := make([]byte, st.Size)
	if _, err := readFull(f, raw); err != nil {
		return nil, fileID{}, false
	}
	files, ok := parseListing(raw, listEnv(c.root), c.unchanged, keep)
	return files, fileIDOf(&st), ok
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Save writes the state for the next run: the answer's token, every hash
// proven unchanged and not read again, every hash read. Nothing is
// written when nothing differs from the saved state.
func (c *Changes) Save() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listOK != (c.prior != nil && c.prior.listingOK) || c.listing != c.priorListing() {
		c.dirty = true
	}
	if !c.dirty {
		return nil
	}
	st := &journalState{epoch: c.token.Epoch, seq: c.token.Seq, listingOK: c.listOK, listing: c.listing, hashes: map[string]string{}}
	prefix := c.root + string(filepath.Separator)
	add := func(abs, h string) {
		if rel, ok := strings.CutPrefix(abs, prefix); ok && len(st.hashes) < maxJournalEntries {
			st.hashes[filepath.ToSlash(rel)] = h
		}
	}
	// A proven path is never read again: the two sets do not meet.
	for rel, h := range c.trusted {
		if len(st.hashes) < maxJournalEntries {
			st.hashes[rel] = h
		}
	}
	for abs, h := range c.verified {
		add(abs, h)
	}
	return saveJournal(c.path, c.root, st)
}

func (c *Changes) priorListing() fileID {
	if c.prior == nil {
		return fileID{}
	}
	return c.prior.listing
}

func saveJournal(path, root string, st *journalState) error {
	var b bytes.Buffer
	b.WriteString(journalMagic)
	put := func(s string) {
		b.Write(binary.AppendUvarint(nil, uint64(len(s))))
		b.WriteString(s)
	}
	putUint := func(v uint64) { b.Write(binary.AppendUvarint(nil, v)) }
	put(version.Version)
	put(root)
	put(st.epoch)
	putUint(st.seq)
	if st.listingOK {
		putUint(1)
	} else {
		putUint(0)
	}
	putUint(st.listing.ino)
	putUint(st.listing.size)
	putUint(uint64(st.listing.mtime))
	putUint(uint64(st.listing.ctim))
	putUint(uint64(len(st.hashes)))
	for rel, h := range st.hashes {
		put(rel)
		put(h)
	}
	return WriteFileAtomic(path, b.Bytes(), 0o644)
}

// loadJournal reads a state saved for root by this version; nil when
// there is none or it is unreadable.
func loadJournal(path, root string) *journalState {
	raw, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(raw, []byte(journalMagic)) {
		return nil
	}
	// One string for the whole file, the buffer itself (nothing writes it
	// once read): the 110,000 paths and hashes of a 10,000-package
	// workspace share it rather than a 7 MB copy.
	body := raw[len(journalMagic):]
	s := unsafe.String(unsafe.SliceData(body), len(body))
	bad := false
	getUint := func() uint64 {
		v, n := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
		if n <= 0 {
			bad = true
			return 0
		}
		s = s[n:]
		return v
	}
	get := func() string {
		n := getUint()
		if bad || n > uint64(len(s)) {
			bad = true
			return ""
		}
		v := s[:n]
		s = s[n:]
		return v
	}
	if get() != version.Version || get() != root || bad {
		return nil
	}
	st := &journalState{epoch: get(), seq: getUint()}
	st.listingOK = getUint() == 1
	st.listing = fileID{ino: getUint(), size: getUint(), mtime: int64(getUint()), ctim: int64(getUint())}
	n := getUint()
	if bad || n > maxJournalEntries {
		return nil
	}
	st.hashes = make(map[string]string, n)
	for i := uint64(0); i < n && !bad; i++ {
		rel := get()
		st.hashes[rel] = get()
	}
	if bad || len(s) != 0 || st.epoch == "" {
		return nil
	}
	return st
}
