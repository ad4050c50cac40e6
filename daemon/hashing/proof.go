package hashing

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/vzn/vx/protocol/wire"
)

// The seam of vxd's change journal (daemon/journal): a run that has its
// answer hashes through it (UseChanges), lists through the saved listing
// with the directories it proves unchanged skipped (ListFilesKept,
// ListingAt), and names what it depends on outside the journal's view by
// Stamps.

// Proven is what vxd's change journal proved of a run's inputs
// (daemon/journal.Changes).
type Proven interface {
	// TrustedHash is the hash of the absolute path abs when it is proven
	// unchanged since it was read.
	TrustedHash(abs string) (string, bool)
	// TrustedHashIn is TrustedHash of the file name in the directory dir
	// (slash paths; dir relative to the workspace root, "" for the root).
	TrustedHashIn(dir, name string) (string, bool)
	// Read notes sum, the hash of abs read (or taken from the stat
	// cache) as st.
	Read(abs string, st *Stat, sum string)
}

// UseChanges makes h answer the files c proves unchanged without a stat,
// and tell c what it read. c is not a nil pointer.
func (h *Hasher) UseChanges(c Proven) { h.changes = &proven{c} }

// proven is a Hasher's Proven; its methods answer nothing for a nil one
// (a Hasher without the journal's answer).
type proven struct{ p Proven }

// trustedHash is p's TrustedHash; false without one.
func (c *proven) trustedHash(abs string) (string, bool) {
	if c == nil {
		return "", false
	}
	return c.p.TrustedHash(abs)
}

// ProvenHash is the hash vxd's change journal proves for the file name in
// the workspace directory dir (slash paths; dir relative to the root, ""
// for the root), found without making the file's absolute path (a run
// asks for each of its inputs); false when it proves none.
func (h *Hasher) ProvenHash(dir, name string) (string, bool) {
	if h.changes == nil {
		return "", false
	}
	return h.changes.p.TrustedHashIn(dir, name)
}

// read tells p, if any, that abs read as sum.
func (c *proven) read(abs string, st *Stat, sum string) {
	if c != nil {
		c.p.Read(abs, st, sum)
	}
}

// FileID is which file a path named: its inode, size, mtime and ctime.
type FileID struct {
	Ino, Size    uint64
	Mtime, Ctime int64
}

// FileIDOf is the FileID of a stat.
func FileIDOf(st *Stat) FileID {
	return FileID{Ino: st.Ino, Size: uint64(st.Size), Mtime: st.Mtime, Ctime: st.Ctime}
}

// Fstat stats the open file f into st.
func Fstat(f *os.File, st *Stat) error { return fstat(f, st) }

// ListFilesKept is ListFilesCached; saved, when this call saved the
// listing anew, is the saved file's identity, and keep, when not nil, is
// given the stats of the listing reused or saved.
func ListFilesKept(ctx context.Context, root, path string, keep func([]Stamp)) (files []string, reused bool, saved *FileID, err error) {
	return listFilesCached(ctx, root, path, keep)
}

// ListingAt is the saved listing raw of root when every stat it holds is
// unchanged, the stats of the paths skip reports taken as unchanged (vxd's
// journal proved them); keep, when not nil, is given its stats once it
// holds.
func ListingAt(raw []byte, root string, skip func(string) bool, keep func([]Stamp)) ([]string, bool) {
	return parseListing(raw, listEnv(root), skip, keep)
}

// Stamp is a path's identity as lstat sees it (size, mtime, ctime, inode,
// mode), or its absence: what a run that repeats an earlier one checks
// for the paths vxd's change journal cannot vouch for.
type Stamp struct {
	Path         string
	Mtime, Ctime int64
	Size         int64
	Ino          uint64
	Mode         uint32
	Exists       bool
}

// StampOf lstats path.
func StampOf(path string) Stamp {
	st := Stamp{Path: path}
	var s Stat
	if err := Lstat(path, &s); err != nil {
		return st
	}
	return StampOfStat(path, &s)
}

// Holds reports whether path still stats as s.
func (s Stamp) Holds() bool { return StampOf(s.Path) == s }

// StampOfStat is the Stamp of abs, stat'ed as st.
func StampOfStat(abs string, st *Stat) Stamp {
	return Stamp{Path: abs, Mtime: st.Mtime, Ctime: st.Ctime, Size: st.Size, Ino: st.Ino, Mode: st.Mode, Exists: true}
}

// Covered reports whether vxd's change journal watches the absolute path
// abs of the workspace root (wire.JournalCovers of its relative path).
func Covered(root, abs string) bool {
	rel, ok := RelSlash(root, abs)
	return ok && wire.JournalCovers(rel)
}

// RelSlash is abs relative to root as the journal names paths (slashes,
// "." for the root); false when abs is not root or beneath it.
func RelSlash(root, abs string) (string, bool) {
	if abs == root {
		return ".", true
	}
	// Cut in two steps: root+separator would allocate for a root longer
	// than 31 bytes, in a call made for every directory and input.
	rest, ok := strings.CutPrefix(abs, root)
	if !ok || rest == "" || rest[0] != filepath.Separator {
		return "", false
	}
	return filepath.ToSlash(rest[1:]), true
}

// cleanRel reports whether rel is a clean relative slash path that Join
// would leave as it is: not empty, no empty, "." or ".." element, no
// backslash (a separator on Windows, which Join cleans around).
func cleanRel(rel string) bool {
	start := 0
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != '/' {
			if rel[i] == '\\' {
				return false
			}
			continue
		}
		if elem := rel[start:i]; elem == "" || elem == "." || elem == ".." {
			return false
		}
		start = i + 1
	}
	return true
}

// JoinSlash is filepath.Join(root, filepath.FromSlash(rel)), RelSlash's
// inverse, without Join's cleaning when rel is already clean and
// relative (a listed file's path) and root clean too (an absolute root
// as filepath.Abs gives it): loads and runs join thousands.
func JoinSlash(root, rel string) string {
	if !cleanRel(rel) || !cleanRoot(root) {
		return filepath.Join(root, filepath.FromSlash(rel))
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return root + filepath.FromSlash(rel) // "/" or a drive's root
	}
	return root + string(filepath.Separator) + filepath.FromSlash(rel)
}

// lastRoot is the root cleanRoot answered last: a load or a run joins its
// thousands of paths to one root, the same string each time.
var lastRoot atomic.Pointer[rootCleanness]

type rootCleanness struct {
	root  string
	clean bool
}

// cleanRoot reports whether root is as filepath.Clean leaves it, and
// more than "." or a volume name ("", "." and "C:" Join leaves out or
// joins without a separator): only to such a root may a clean relative
// path be joined by concatenation.
func cleanRoot(root string) bool {
	if last := lastRoot.Load(); last != nil && last.root == root {
		return last.clean
	}
	clean := root != "." && len(root) > len(filepath.VolumeName(root)) && filepath.Clean(root) == root
	lastRoot.Store(&rootCleanness{root, clean})
	return clean
}
