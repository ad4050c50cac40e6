package live

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vzn/vx/protocol/wire"
)

// ANSI control sequences, plain: every terminal vx draws on knows them.
const (
	hideCursor = "\x1b[?25l"
	showCursor = "\x1b[?25h"
	clearLine  = "\x1b[2K"
	lineUp     = "\x1b[A"
)

// maxRunning bounds the running tasks the area lists; the rest are "+k
// more".
const maxRunning = 8

// state is what the area shows: counts, and each running task since when.
type state struct {
	total, done, failed, hits int
	began                     time.Time
	running                   map[string]time.Time
	finished                  map[string]bool
	fc                        Forecaster // nil until loaded
}

// note counts a task's start or end.
func (s *state) note(e wire.Event, now time.Time) {
	if e.Type == wire.EventTaskStarted {
		s.running[e.TaskID] = now
		return
	}
	delete(s.running, e.TaskID)
	if s.finished[e.TaskID] {
		return
	}
	s.finished[e.TaskID] = true
	s.done++
	if e.Cache == wire.CacheHit {
		s.hits++
	}
	if e.Status == wire.StatusFailed || e.Status == wire.StatusTimedOut {
		s.failed++
	}
}

// frame is the area for a terminal of cols×rows: the counts line, then
// the running tasks, oldest first, each line cut to the width. It has no
// final newline (the cursor stays on its last row).
func (s *state) frame(now time.Time, cols, rows int) string {
	lines := []string{s.header(now)}
	ids := make([]string, 0, len(s.running))
	for id := range s.running {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if c := s.running[a].Compare(s.running[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	// The area takes at most half the screen, and one row however small.
	room := min(maxRunning, rows/2-1)
	if len(ids) > room && room > 0 {
		room-- // a row for "+k more"
	}
	for i, id := range ids {
		if room <= 0 {
			break
		}
		if i == room {
			lines = append(lines, fmt.Sprintf("  +%d more", len(ids)-room))
			break
		}
		lines = append(lines, s.taskLine(id, now))
	}
	for i := range lines {
		lines[i] = cut(lines[i], cols-1)
	}
	return strings.Join(lines, "\n")
}

// header is "vx  3 of 42 done · 1 failed · 2 cached · 4 running · 1m02s · ~3m10s left".
func (s *state) header(now time.Time) string {
	parts := []string{fmt.Sprintf("vx  %d of %d done", s.done, s.total)}
	if s.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", s.failed))
	}
	if s.hits > 0 {
		parts = append(parts, fmt.Sprintf("%d cached", s.hits))
	}
	parts = append(parts, fmt.Sprintf("%d running", len(s.running)), clock(now.Sub(s.began)))
	if s.fc != nil {
		el := make(map[string]time.Duration, len(s.running))
		for id, at := range s.running {
			el[id] = now.Sub(at)
		}
		left, unknown := s.fc.Left(func(id string) bool { return s.finished[id] }, el)
		switch {
		case unknown == 0:
			parts = append(parts, "~"+clock(left+time.Second-1)+" left")
		case left > 0:
			// The tasks without history make it longer by an unknown time.
			parts = append(parts, fmt.Sprintf("~%s left + %d without history", clock(left+time.Second-1), unknown))
		}
	}
	return strings.Join(parts, " · ")
}

// taskLine is "  web#build  12s (p50 40s)".
func (s *state) taskLine(id string, now time.Time) string {
	line := "  " + id + "  " + clock(now.Sub(s.running[id]))
	if s.fc != nil {
		if p50, ok := s.fc.P50(id); ok {
			line += " (p50 " + clock(p50) + ")"
		}
	}
	return line
}

// clock is a duration to the second: 7s, 1m02s, 1h04m.
func clock(d time.Duration) string {
	sec := int64(d / time.Second)
	switch {
	case sec < 60:
		return strconv.FormatInt(sec, 10) + "s"
	case sec < 3600:
		return fmt.Sprintf("%dm%02ds", sec/60, sec%60)
	default:
		return fmt.Sprintf("%dh%02dm", sec/3600, sec%3600/60)
	}
}

// cut shortens a line to n characters, ending it with … when cut.
func cut(s string, n int) string {
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// erase appends what clears an area of rows rows, the cursor on its last
// row, and leaves the cursor at the start of its first row. Each row is
// cleared by itself, bottom up: clearing "to the end of the screen" from
// the top-left corner, where an area drawn on the first row begins, makes
// tmux (scroll-on-clear) keep the screen in its scrollback instead.
func erase(buf []byte, rows int) []byte {
	if rows == 0 {
		return buf
	}
	buf = append(buf, '\r')
	buf = append(buf, clearLine...)
	for range rows - 1 {
		buf = append(buf, lineUp...)
		buf = append(buf, clearLine...)
	}
	return buf
}

// widths appends the width of each line of frame to w.
func widths(w []int, frame string) []int {
	for _, l := range strings.Split(frame, "\n") {
		w = append(w, utf8.RuneCountInString(l))
	}
	return w
}

// rowsAt is the rows lines of these widths take on a screen cols wide.
// Each was cut to fit one row when drawn, but a terminal made narrower
// since wraps what no longer fits (as tmux, VTE, iTerm2 and kitty do):
// the area is erased from its first row, not from a row inside it.
func rowsAt(w []int, cols int) int {
	rows := 0
	for _, n := range w {
		rows += max(1, (n+max(1, cols)-1)/max(1, cols))
	}
	return rows
}
