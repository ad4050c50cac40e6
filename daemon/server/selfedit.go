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

// selfEdits tells the edits of a plugin's sources made while vxd's last
// reload asked the plugin (it started the plugin, and the file's
// modification time is within that reload) from other edits, and stops a run of reloads that such edits
// alone caused: a plugin rewriting its own entry as it answers would
// otherwise make vxd reload, and ask it again, for as long as vxd runs.
type selfEdits struct {
	start, end time.Time       // the last reload's span
	asked      map[string]bool // the plugins it started, by declaration
	streak     int             // reloads in a row caused by such edits alone
	gathered   bool            // an edit awaits the next reload
	selfOnly   bool            // and every edit gathered for it is such an edit
	held       bool            // streak reached maxSelfReloads: such edits reload no more
}

// during reports whether path, a source of the plugin declared as spec,
// was last written within the last reload, which asked that plugin.
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

// admit records an edit that may reload (self: an edit of a plugin's
// source made during the last reload) and reports whether it does: not
// while such edits are held.
func (s *selfEdits) admit(self bool) bool {
	if self && s.held {
		return false
	}
	s.selfOnly = self && (s.selfOnly || !s.gathered)
	s.gathered = true
	return true
}

// reloaded records a reload of the edits gathered, over start to end,
// that asked the plugins in asked, and reports whether such edits are now held (once, as it happens) and
// whether a hold ended (an edit of another kind reloaded).
func (s *selfEdits) reloaded(start, end time.Time, asked map[string]bool) (heldNow, released bool) {
	s.start, s.end, s.asked = start, end, asked
	self := s.gathered && s.selfOnly
	s.gathered, s.selfOnly = false, false
	if !self {
		released = s.held
		s.streak, s.held = 0, false
		return false, released
	}
	s.streak++
	if s.streak >= maxSelfReloads && !s.held {
		s.held = true
		return true, false
	}
	return false, false
}

// selfEditNote is what vxd status says of a plugin whose edits of its
// own sources are held.
func selfEditNote(spec, rel string) string {
	return fmt.Sprintf("plugin %s rewrote %s while vxd asked it, %d reloads in a row: vxd no longer reloads on its edits of itself (an edit of yours still reloads); have the plugin write its own files outside its entry and the modules it imports", spec, rel, maxSelfReloads)
}

// setPluginEditsIgnored sets what vxd status says of a plugin whose
// edits of itself no longer reload ("" none).
func (d *daemon) setPluginEditsIgnored(note string) {
	d.mu.Lock()
	d.pluginEdits = note
	d.mu.Unlock()
}
