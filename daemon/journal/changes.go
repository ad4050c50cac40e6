package journal

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/records"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// A run's use of the journal's answer, and the state it saves for the
// next run (doc.go, "What a run takes from it").

// ChangeSource asks vxd what changed since a token (epoch "" asks only the
// current token). It never starts a daemon.
type ChangeSource func(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error)

// changesWait bounds the question: past it the run stats every file.
const changesWait = time.Second

// journalMagic heads a state file; 2: its entries are sorted by path,
// each path once (a state of 1 is not read).
const journalMagic = "vxjrnl2\n"

// maxJournalEntries bounds the hashes a state holds.
const maxJournalEntries = 1 << 21

// maxStateFile bounds the state file a run reads and writes (its offsets
// are 32 bits).
var maxStateFile = 1 << 30

type journalState struct {
	epoch     string
	seq       uint64
	listingOK bool           // the listing file listing was valid at the token
	listing   hashing.FileID // which file that was
	proven    *provenTable   // the hashes saved (nil for none)
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

	// trusted are the saved hashes the answer proves unchanged (nil for
	// none); nothing writes it once OpenChanges returns.
	trusted *provenTable

	mu sync.Mutex
	// verified are the hashes read this run, by absolute path (one read
	// twice is there twice): appended, not a map of every input.
	verified []entry
	dirty    bool
	listing  hashing.FileID
	listOK   bool
	// listStamps are the stats of the run's listing (listing) that the
	// journal does not watch: git's index, configuration, ignore files.
	listStamps []hashing.Stamp
	// unwatched are the inputs read that the journal cannot vouch for
	// (outside its view, or with other links), by absolute path.
	unwatched map[string]hashing.Stamp
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
	c := &Changes{root: root, path: path, token: *ans, prior: prior}
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
	// relative path: no second index of absolute paths to build).
	c.trusted = prior.proven
	for _, rel := range ans.Changed {
		if c.trusted.remove(rel) {
			c.dirty = true
		}
	}
	return c, fmt.Sprintf("journal: %d paths changed, %d files proven unchanged", len(ans.Changed), c.trusted.live())
}

// Attach makes h answer the files c proves unchanged without a stat, and
// tell c what it read; a nil c changes nothing.
func (c *Changes) Attach(h *hashing.Hasher) {
	if c != nil {
		h.UseChanges(c)
	}
}

// TrustedHash is the saved hash of abs when the journal proves it
// unchanged since it was read (hashing.Proven).
func (c *Changes) TrustedHash(abs string) (string, bool) {
	if c == nil {
		return "", false
	}
	rel, ok := strings.CutPrefix(abs, c.root)
	if !ok || len(rel) < 2 || rel[0] != filepath.Separator {
		return "", false
	}
	return c.trusted.hash(filepath.ToSlash(rel[1:]))
}

// TrustedHashIn is TrustedHash of the file name in the directory dir
// (slash paths; dir relative to the root, "" for the root), without its
// absolute path (hashing.Proven).
func (c *Changes) TrustedHashIn(dir, name string) (string, bool) {
	if c == nil {
		return "", false
	}
	return c.trusted.hashIn(dir, name)
}

// Read notes a hash HashFile read (or took from the stat cache) after the
// token: the next run may take it unless the journal says it changed
// (hashing.Proven).
func (c *Changes) Read(abs string, st *hashing.Stat, sum string) {
	if c == nil {
		return
	}
	if st.Nlink != 1 || !hashing.Covered(c.root, abs) {
		// Neither may the next run take from the journal: no watch
		// reports a write to it (a file named node_modules is listed,
		// and no event is counted for it).
		c.mu.Lock()
		if c.unwatched == nil {
			c.unwatched = map[string]hashing.Stamp{}
		}
		c.unwatched[abs] = hashing.StampOfStat(abs, st)
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.verified = append(c.verified, entry{abs, sum})
	c.dirty = true
	c.mu.Unlock()
}

// unchanged reports whether the journal's answer proves the absolute path p
// unchanged since the saved token.
func (c *Changes) unchanged(p string) bool {
	rel, ok := hashing.RelSlash(c.root, p)
	return ok && wire.JournalCovers(rel) && !c.changed[rel]
}

// ListFiles is ListFilesCached, with the saved listing's directories taken
// from the journal when it proves them unchanged.
func (c *Changes) ListFiles(ctx context.Context, root string) ([]string, error) {
	path := layout.FileList(root)
	if c == nil {
		files, _, err := hashing.ListFilesCached(ctx, root, path)
		return files, err
	}
	var held []hashing.Stamp
	keep := func(stats []hashing.Stamp) { held = unwatchedOf(c.root, stats) }
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
	var before, after hashing.Stat
	errBefore := hashing.StatPath(path, &before)
	files, reused, saved, err := hashing.ListFilesKept(ctx, root, path, keep)
	switch {
	case err != nil:
	case saved != nil:
		// Saved by this run from stats it took after the token: as good
		// as one the check reused (listFilesCached stat'ed it after).
		c.listing, c.listOK = *saved, true
	case reused && errBefore == nil && hashing.StatPath(path, &after) == nil && hashing.FileIDOf(&before) == hashing.FileIDOf(&after):
		// The same file before and after: the listing the check reused.
		c.listing, c.listOK = hashing.FileIDOf(&after), true
	}
	return files, err
}

// loadTrustedListing reads the saved listing the last run found valid
// (the same file: one open, its fstat and its read).
func (c *Changes) loadTrustedListing(path string, keep func([]hashing.Stamp)) ([]string, hashing.FileID, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, hashing.FileID{}, false
	}
	defer f.Close()
	var st hashing.Stat
	if err := hashing.Fstat(f, &st); err != nil || hashing.FileIDOf(&st) != c.prior.listing {
		return nil, hashing.FileID{}, false
	}
	raw := make([]byte, st.Size)
	if _, err := readFull(f, raw); err != nil {
		return nil, hashing.FileID{}, false
	}
	files, ok := hashing.ListingAt(raw, c.root, c.unchanged, keep)
	return files, hashing.FileIDOf(&st), ok
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
	st := &journalState{epoch: c.token.Epoch, seq: c.token.Seq, listingOK: c.listOK, listing: c.listing, proven: c.trusted}
	return saveJournal(c.path, c.root, st, c.readEntries())
}

// entry is a path and the hash read of it.
type entry struct{ path, hash string }

// readEntries are the hashes read this run by the slash path relative
// to the root, sorted, each path once.
func (c *Changes) readEntries() []entry {
	prefix := c.root + string(filepath.Separator)
	out := make([]entry, 0, len(c.verified))
	for _, e := range c.verified {
		if rel, ok := strings.CutPrefix(e.path, prefix); ok {
			out = append(out, entry{filepath.ToSlash(rel), e.hash})
		}
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	return slices.CompactFunc(out, func(a, b entry) bool { return a.path == b.path })
}

func (c *Changes) priorListing() hashing.FileID {
	if c.prior == nil {
		return hashing.FileID{}
	}
	return c.prior.listing
}

// saveJournal writes st, its proven hashes merged with read (sorted by
// path; a path in both is read's), in at most maxJournalEntries entries
// and maxStateFile bytes.
func saveJournal(path, root string, st *journalState, read []entry) error {
	var w records.Writer
	w.B.WriteString(journalMagic)
	w.Str(version.Version)
	w.Str(root)
	w.Str(st.epoch)
	w.Uint(st.seq)
	w.Bool(st.listingOK)
	w.Uint(st.listing.Ino)
	w.Uint(st.listing.Size)
	w.Uint(uint64(st.listing.Mtime))
	w.Uint(uint64(st.listing.Ctime))
	budget := maxStateFile - w.B.Len() - binary.MaxVarintLen64
	ents, n := st.proven.merge(read, maxJournalEntries, budget)
	w.Uint(uint64(n))
	w.B.Write(ents)
	return hashing.WriteFileAtomic(path, w.B.Bytes(), 0o644)
}

// loadJournal reads a state saved for root by this version; nil when
// there is none or it is unreadable.
func loadJournal(path, root string) *journalState {
	raw := readState(path)
	if !bytes.HasPrefix(raw, []byte(journalMagic)) {
		return nil
	}
	// The entries stay in the file's bytes (provenTable): nothing copies
	// the 110,000 paths and hashes of a 10,000-package workspace.
	body := raw[len(journalMagic):]
	r := records.Reader{S: unsafe.String(unsafe.SliceData(body), len(body))}
	if r.Str() != version.Version || r.Str() != root || r.Bad {
		return nil
	}
	st := &journalState{epoch: r.Str(), seq: r.Uint()}
	st.listingOK = r.Bool()
	st.listing = hashing.FileID{Ino: r.Uint(), Size: r.Uint(), Mtime: int64(r.Uint()), Ctime: int64(r.Uint())}
	n := r.Count(maxJournalEntries)
	if r.Bad || st.epoch == "" {
		return nil
	}
	st.proven = newProvenTable(body[len(body)-len(r.S):], n)
	if st.proven == nil {
		return nil
	}
	return st
}

// readState is the file at path when it is at most maxStateFile bytes.
func readState(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var st hashing.Stat
	if hashing.Fstat(f, &st) != nil || st.Size > int64(maxStateFile) {
		return nil
	}
	raw := make([]byte, st.Size)
	if _, err := readFull(f, raw); err != nil {
		return nil
	}
	return raw
}

// Unwatched lists what this run's file listing and inputs depend on that
// the journal does not watch, each as it stat'ed: the saved listing's
// stats outside the journal's view (git's index, configuration and ignore
// files), and every input read with more than one link (a write through
// another link is reported for that link only) or outside the journal's
// view. ok is false when the run's listing was not one the journal can
// vouch for (not saved, or rewritten since): no later run may then take
// this run's answer without listing again.
func (c *Changes) Unwatched() (stamps []hashing.Stamp, ok bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listOK {
		return nil, false
	}
	var st hashing.Stat
	if err := hashing.StatPath(layout.FileList(c.root), &st); err != nil || hashing.FileIDOf(&st) != c.listing {
		return nil, false // rewritten since
	}
	stamps = append(stamps, c.listStamps...)
	for _, s := range c.unwatched {
		stamps = append(stamps, s)
	}
	return stamps, true
}

// unwatchedOf is the stats of stats outside the journal's view.
func unwatchedOf(root string, stats []hashing.Stamp) []hashing.Stamp {
	var out []hashing.Stamp
	for _, p := range stats {
		if !hashing.Covered(root, p.Path) {
			out = append(out, p)
		}
	}
	return out
}

// Token is the token of the run's answer: its epoch ("" for nil) and
// sequence number.
func (c *Changes) Token() (string, uint64) {
	if c == nil {
		return "", 0
	}
	return c.token.Epoch, c.token.Seq
}

// Epoch is the journal epoch the run's answer came from ("" for nil).
func (c *Changes) Epoch() string {
	if c == nil {
		return ""
	}
	return c.token.Epoch
}

// stateToken is the token of the state saved for root at path ("" when
// there is none, or it is another version's or another root's), read from
// its head alone: the state itself (hashes of every input) is loaded once,
// by OpenChanges.
func stateToken(path, root string) (string, uint64) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0
	}
	defer f.Close()
	// The head: magic, version, root, epoch (each length-prefixed), seq.
	head := make([]byte, len(journalMagic)+len(version.Version)+len(root)+256)
	n, _ := readFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte(journalMagic)) {
		return "", 0
	}
	r := records.Reader{S: string(head[len(journalMagic):])}
	if r.Str() != version.Version || r.Str() != root {
		return "", 0
	}
	epoch, seq := r.Str(), r.Uint()
	if r.Bad {
		return "", 0
	}
	return epoch, seq
}

// Unchanged reports whether the journal proves the absolute path abs
// unchanged since the token (epoch, seq) was answered: this run's answer
// is complete since the saved state's token, of that epoch and no newer
// than seq, and abs is in its view and not among its changed paths. (What
// a run stamped after that answer, with one link, then still holds.)
func (c *Changes) Unchanged(epoch string, seq uint64, abs string) bool {
	return c != nil && c.complete && epoch == c.prior.epoch && seq >= c.prior.seq && c.unchanged(abs)
}
