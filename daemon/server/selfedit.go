package server

import (
	"fmt"
	"os"
	"time"
)

// maxSelfReloads bounds the reloads in a row that only edits of a
// plugin's own sources, made while vxd's last reload asked it, caused.
const maxSelfReloads = 3

// stampSlack widens a reload's span when a file's modification time is
// compared with it: a file system may stamp a write from a clock a tick
// behind the one vxd reads.
const stampSlack = 20 * time.Millisecond

// selfEdits tells the edits of a plugin's sources, or of files its
// globs match, made while vxd's last reload asked the plugin (it started
// the plugin, and the file's modification time is within that reload)
// from other edits, and stops a run of reloads that such edits of one
// file alone caused: a plugin rewriting its own entry, or a file it
// reads, as it answers would otherwise make vxd reload, and ask it
// again, for as long as vxd runs. A run is of one file, so that another
// writer's edits of many (a branch switch under way) make none.
type selfEdits struct {
	start, end time.Time       // the last reload's span
	asked      map[string]bool // the plugins it started, by declaration
	gathered   bool            // an edit awaits the next reload
	selfOnly   bool            // and every edit gathered for it is such an edit
	spec, file string          // the last such edit gathered: its plugin, its path
	prev       string          // the file of the last reload of such edits
	streak     int             // reloads in a row of such edits, the last of prev
	held       map[string]bool // files whose such edits reload no more
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
// whether it does: not when such edits of path are held.
func (s *selfEdits) admit(spec, path string) bool {
	self := spec != ""
	if self && s.held[path] {
		return false
	}
	if self {
		s.spec, s.file = spec, path
	}
	s.selfOnly = self && (s.selfOnly || !s.gathered)
	s.gathered = true
	return true
}

// reloaded records a reload of the edits gathered, over start to end,
// that asked the plugins in asked. It reports whether such edits of a
// file are now held (heldNow, once for each file: s.spec and s.file say
// which), and whether holds ended (an edit of another kind reloaded).
func (s *selfEdits) reloaded(start, end time.Time, asked map[string]bool) (heldNow, released bool) {
	s.start, s.end, s.asked = start, end, asked
	self := s.gathered && s.selfOnly
	s.gathered, s.selfOnly = false, false
	if !self {
		released = len(s.held) > 0
		s.streak, s.prev, s.held = 0, "", nil
		return false, released
	}
	if s.file != s.prev {
		s.streak, s.prev = 0, s.file
	}
	if s.streak++; s.streak < maxSelfReloads || s.held[s.file] {
		return false, false
	}
	if s.held == nil {
		s.held = map[string]bool{}
	}
	s.held[s.file] = true
	return true, false
}

// selfEditNote is what vxd status says of a plugin whose edits of rel
// during the reloads that asked it are held.
func selfEditNote(spec, rel string) string {
	return fmt.Sprintf("plugin %s wrote %s while vxd asked it, %d reloads in a row: vxd no longer reloads on such edits (an edit of yours still reloads); have the plugin keep its own files out of its entry, the modules it imports and the files its globs match", spec, rel, maxSelfReloads)
}

// setPluginEditsIgnored sets what vxd status says of a plugin whose
// edits of itself no longer reload ("" none).
func (d *daemon) setPluginEditsIgnored(note string) {
	d.mu.Lock()
	d.pluginEdits = note
	d.mu.Unlock()
}
