package server

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"time"
)

// maxSelfReloads bounds the reloads of one run (reloads in a row that
// only edits of plugins' own sources, made while vxd's last reload asked
// them, caused) that edits of one file may cause.
const maxSelfReloads = 3

// maxPluginSelfReloads bounds the reloads of one run that one plugin's
// edits may cause, over however many files: a plugin writing a new file
// its globs match at each request would otherwise never repeat one.
const maxPluginSelfReloads = 10

// stampSlack widens a reload's span when a file's modification time is
// compared with it: a file system may stamp a write from a clock a tick
// behind the one vxd reads.
const stampSlack = 20 * time.Millisecond

// selfEdits tells the edits of a plugin's sources, or of files its
// globs match, made while vxd's last reload asked the plugin (it started
// the plugin, and the file's modification time is within that reload)
// from other edits, and stops a run of reloads that such edits alone
// caused: a plugin rewriting its own entry, or files it reads, as it
// answers would otherwise make vxd reload, and ask it again, for as long
// as vxd runs. A file is held once such edits of it caused
// maxSelfReloads reloads of a run (two files written in turn are each
// held), a plugin once its edits caused maxPluginSelfReloads; another
// writer's edits of many files, each once (a branch switch under way),
// hold none.
type selfEdits struct {
	start, end time.Time         // the last reload's span
	asked      map[string]bool   // the plugins it started, by declaration
	gathered   bool              // an edit awaits the next reload
	selfOnly   bool              // and every edit gathered for it is such an edit
	edits      map[string]string // such edits gathered: path → plugin
	files      map[string]int    // reloads of this run, by file edited
	plugins    map[string]int    // reloads of this run, by plugin whose edits
	held       map[string]bool   // files and plugins whose such edits reload no more
	spec, file string            // the plugin and file held last
}

// during reports whether path, a source of the plugin declared as spec
// or a file its globs match, was last written within the last reload,
// which asked that plugin.
func (s *selfEdits) during(spec, path string) bool {
	if !s.asked[spec] {
		return false
	}
	st, err := os.Lstat(path)
	if err != nil {
		return false
	}
	mt := st.ModTime()
	return !mt.Before(s.start.Add(-stampSlack)) && !mt.After(s.end.Add(stampSlack))
}

// admit records an edit of path that may reload (spec: the plugin whose
// edit during the last reload it is, "" when it is none) and reports
// whether it does: not when such edits of path, or of spec, are held.
func (s *selfEdits) admit(spec, path string) bool {
	self := spec != ""
	if self && (s.held[path] || s.held[pluginKey(spec)]) {
		return false
	}
	if self {
		if s.edits == nil {
			s.edits = map[string]string{}
		}
		s.edits[path] = spec
	}
	s.selfOnly = self && (s.selfOnly || !s.gathered)
	s.gathered = true
	return true
}

// pluginKey is held's key for the plugin declared as spec: no path is
// it.
func pluginKey(spec string) string { return "\x00" + spec }

// reloaded records a reload of the edits gathered, over start to end,
// that asked the plugins in asked. It reports whether such edits of a
// file or a plugin are now held (heldNow: s.spec and s.file say which,
// s.file "" for a plugin), and whether holds ended (an edit of another
// kind reloaded).
func (s *selfEdits) reloaded(start, end time.Time, asked map[string]bool) (heldNow, released bool) {
	s.start, s.end, s.asked = start, end, asked
	self, edits := s.gathered && s.selfOnly, s.edits
	s.gathered, s.selfOnly, s.edits = false, false, nil
	if !self {
		released = len(s.held) > 0
		s.files, s.plugins, s.held = nil, nil, nil
		return false, released
	}
	if s.held == nil {
		s.files, s.plugins, s.held = map[string]int{}, map[string]int{}, map[string]bool{}
	}
	specs := map[string]bool{}
	for _, path := range slices.Sorted(maps.Keys(edits)) {
		specs[edits[path]] = true
		if s.files[path]++; s.files[path] >= maxSelfReloads && !s.held[path] {
			s.held[path], s.spec, s.file, heldNow = true, edits[path], path, true
		}
	}
	for spec := range specs {
		if s.plugins[spec]++; s.plugins[spec] >= maxPluginSelfReloads && !s.held[pluginKey(spec)] {
			s.held[pluginKey(spec)], s.spec, s.file, heldNow = true, spec, "", true
		}
	}
	return heldNow, false
}

// selfEditNote is what vxd status says of a plugin whose edits of rel
// during the reloads that asked it are held (rel "": its edits of any
// file, maxPluginSelfReloads reloads of them).
func selfEditNote(spec, rel string) string {
	what, n := "wrote "+rel, maxSelfReloads
	if rel == "" {
		what, n = "wrote files it reads", maxPluginSelfReloads
	}
	return fmt.Sprintf("plugin %s %s while vxd asked it, %d reloads of a run of such edits: vxd no longer reloads on them (an edit of yours still reloads); have the plugin keep its own files out of its entry, the modules it imports and the files its globs match", spec, what, n)
}

// setPluginEditsIgnored sets what vxd status says of a plugin whose
// edits of itself no longer reload ("" none).
func (d *daemon) setPluginEditsIgnored(note string) {
	d.mu.Lock()
	d.pluginEdits = note
	d.mu.Unlock()
}
