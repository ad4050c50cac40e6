package hashing

import (
	"path/filepath"
	"strings"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

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
	return stampOfStat(path, &s)
}

// Holds reports whether path still stats as s.
func (s Stamp) Holds() bool { return StampOf(s.Path) == s }

func stampOfStat(abs string, st *Stat) Stamp {
	return Stamp{Path: abs, Mtime: st.Mtime, Ctime: st.Ctime, Size: st.Size, Ino: st.Ino, Mode: st.Mode, Exists: true}
}

// Covered reports whether vxd's change journal watches the absolute path
// abs of the workspace root (wire.JournalCovers of its relative path).
func Covered(root, abs string) bool {
	rel, ok := relSlash(root, abs)
	return ok && wire.JournalCovers(rel)
}

// relSlash is abs relative to root as the journal names paths (slashes,
// "." for the root); false when abs is not root or beneath it.
func relSlash(root, abs string) (string, bool) {
	if abs == root {
		return ".", true
	}
	rest, ok := strings.CutPrefix(abs, root+string(filepath.Separator))
	return filepath.ToSlash(rest), ok
}

// Unwatched lists what this run's file listing and inputs depend on that
// the journal does not watch, each as it stat'ed: the saved listing's
// stats outside the journal's view (git's index, configuration and ignore
// files), and every input read with more than one link (a write through
// another link is reported for that link only) or outside the journal's
// view. ok is false when the run's listing was not one the journal can
// vouch for (not saved, or rewritten since): no later run may then take
// this run's answer without listing again.
func (c *Changes) Unwatched() (stamps []Stamp, ok bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listOK {
		return nil, false
	}
	var st Stat
	if err := StatPath(layout.FileList(c.root), &st); err != nil || fileIDOf(&st) != c.listing {
		return nil, false // rewritten since
	}
	stamps = append(stamps, c.listStamps...)
	for _, s := range c.unwatched {
		stamps = append(stamps, s)
	}
	return stamps, true
}

// unwatchedOf is the stats of stats outside the journal's view.
func unwatchedOf(root string, stats []Stamp) []Stamp {
	var out []Stamp
	for _, p := range stats {
		if !Covered(root, p.Path) {
			out = append(out, p)
		}
	}
	return out
}

// Epoch is the journal epoch the run's answer came from ("" for nil).
func (c *Changes) Epoch() string {
	if c == nil {
		return ""
	}
	return c.token.Epoch
}
