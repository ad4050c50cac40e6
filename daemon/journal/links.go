package journal

import (
	"path/filepath"
	"sync"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// Links answers whether a run's workspace is read without a symbolic link
// where the journal must see it: the journal watches the directories it
// walks, and an edit behind a link (or a manifest made there) is reported
// for no watched path, so such a run leaves no memo. The zero Links is
// ready; Start begins the check, Linked waits for it.
type Links struct {
	// Proven, set before Start, says a run's memo proved the workspace
	// read without a link and vxd's journal that nothing changed since
	// (Base.LinkFree): where the journal watches every directory a link
	// could be made in (provable), there is none to look for.
	Proven bool
	// direct says of each directory whether it is reached from the root
	// without a symbolic link (its Root set by modelLinked).
	direct hashing.DirectDirs
	once   sync.Once
	linked chan string
}

// Start begins the check of m (once: later calls change nothing); its
// stats overlap the run's.
func (l *Links) Start(m *workspace.Model) {
	l.once.Do(func() {
		l.linked = make(chan string, 1)
		go func() { l.linked <- l.modelLinked(m) }()
	})
}

// Linked is Start's answer for m: a file of the workspace's configuration
// (or a project's directory, or a path the project globs reach) read
// through a symbolic link, "" when none is.
func (l *Links) Linked(m *workspace.Model) string {
	l.Start(m)
	f := <-l.linked
	l.linked <- f
	return f
}

// modelLinked is Linked's answer, computed.
func (l *Links) modelLinked(m *workspace.Model) string {
	if l.Proven && provable(m) {
		return ""
	}
	l.direct.Root = m.Root
	// The glob walk proves most project directories reached without a
	// link (entries of a cleared directory): Direct need not lstat them.
	p := m.ProjectGlobLink(func(abs string) { l.direct.Set(abs, true) })
	if p != "" {
		return p
	}
	// Each project's directory is the directory of a file it was read
	// from (its package.json or vx.project.json): checked below.
	for _, f := range m.Files {
		var st hashing.Stat
		if hashing.Lstat(f, &st) != nil || !st.Regular() || !l.direct.Direct(filepath.Dir(f)) {
			return f
		}
	}
	return ""
}

// provable reports whether a symbolic link made where m's check looks
// (a manifest, the directories above it, a match of the project globs) is
// made in a directory vxd's journal watches: every file m was read from is
// in its view, and the project globs reach no further (ProjectGlobsWithin).
func provable(m *workspace.Model) bool {
	for _, f := range m.Files {
		if !hashing.Covered(m.Root, f) {
			return false
		}
	}
	return m.ProjectGlobsWithin(wire.JournalCovers)
}
