package failures

import (
	"strings"
)

var (
	pyFrame         = lazy(`^\s*File "(.+)", line (\d+)(?:, in .*)?$`)
	pytestLoc       = lazy(`^((?:[A-Za-z]:)?[^\s:]+\.py):(\d+):(?: (.*))?$`)
	pytestSummary   = lazy(`^(?:FAILED|ERROR) ((?:[A-Za-z]:)?[^\s:]+\.py)(?:::(\S+))?(?: - (.*))?$`)
	pytestSection   = lazy(`^(?:_{3,} .* _{3,}|={3,} .* ={3,})$`)
	pytestErrorLine = lazy(`^E\s+(.*)$`)
	severityPrefix  = lazy(`^(?:fatal error|error|warning|note|info):`)
	pyStdlib        = lazy(`(?:^|/)lib/python\d[\d.]*/`)
)

// parsePytest reads pytest's failure sections ("tests/test_x.py:12:
// AssertionError", with the section's first "E   " line as the message,
// and "file:line: in func" frames of --tb=short) and its short summary
// ("FAILED tests/test_x.py::test_a - assert ...", file only).
func parsePytest(s *scan) {
	// Each location takes the first E line of its section, which may follow it.
	section := make([]string, len(s.lines))
	start, first := 0, ""
	for i := 0; i <= len(s.lines); i++ {
		if i == len(s.lines) || pytestSection.MatchString(s.lines[i]) {
			for j := start; j < i; j++ {
				section[j] = first
			}
			start, first = i, ""
			continue
		}
		if m := pytestErrorLine.FindStringSubmatch(s.lines[i]); m != nil && first == "" {
			first = m[1]
		}
	}
	for i, line := range s.lines {
		if m := pytestSummary.FindStringSubmatch(line); m != nil {
			msg := m[3]
			if m[2] != "" {
				msg = jsMessage(m[2], m[3])
			}
			s.add(i, hit{loc: Location{File: m[1], Message: msg, Tool: "pytest"}})
			continue
		}
		m := find(pytestLoc, line, ".py:")
		if m == nil || severityPrefix.MatchString(m[3]) || pyLibrary(m[1]) {
			continue
		}
		msg := section[i]
		if msg == "" {
			msg = m[3]
		}
		s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Message: msg, Tool: "pytest"}})
	}
}

// parsePython reads tracebacks ("File "x.py", line 12, in f"), each frame
// taking the exception line that ends the traceback as its message. Frames
// in the standard library and installed packages are skipped.
func parsePython(s *scan) {
	var frames []hit
	flush := func(msg string) {
		for _, h := range frames {
			h.loc.Message = msg
			s.add(h.pos, h)
		}
		frames = nil
	}
	for i, line := range s.lines {
		if m := find(pyFrame, line, `File "`); m != nil {
			if !pyLibrary(m[1]) {
				frames = append(frames, hit{pos: i, loc: Location{File: m[1], Line: atoi(m[2]), Tool: "python"}})
			}
			continue
		}
		if len(frames) > 0 && line != "" && line[0] != ' ' && line[0] != '\t' && !strings.HasPrefix(line, "Traceback ") {
			flush(line)
		}
	}
	flush("")
}

// pyLibrary reports whether a file is Python's own or an installed package's.
func pyLibrary(file string) bool {
	f := slashed(file)
	return strings.HasPrefix(f, "<") ||
		strings.Contains(f, "/site-packages/") ||
		strings.Contains(f, "/dist-packages/") ||
		pyStdlib.MatchString(f)
}
