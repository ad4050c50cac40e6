package failures

var (
	rustHeader   = lazy(`^(error|warning)(\[\w+\])?: (.*)$`)
	rustSub      = lazy(`^(?:note|help)(?:\[\w+\])?:`)
	rustArrow    = lazy(`^\s*--> (.+?):(\d+):(\d+)$`)
	rustPanic    = lazy(`^thread '[^']*'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$`)
	rustPanicOld = lazy(`^thread '[^']*'(?: \(\d+\))? panicked at '(.*)$`)
	rustPanicEnd = lazy(`', (\S+?):(\d+):(\d+)$`)
)

// parseRust reads rustc diagnostics (an "error[E0308]: msg" header, then
// its primary span "--> file:line:col"; spans of note and help
// sub-diagnostics are not the error) and test panics, "thread 't' panicked
// at file:line:col:" with the message on the next line (Rust 1.73 on) or
// "panicked at 'msg', file:line:col" before.
func parseRust(s *scan) {
	header, warn, armed := "", false, false
	for i, line := range s.lines {
		if m := rustHeader.FindStringSubmatch(line); m != nil {
			header, warn, armed = m[1]+m[2]+": "+m[3], m[1] == "warning", true
			continue
		}
		if rustSub.MatchString(line) {
			armed = false
			continue
		}
		if m := find(rustArrow, line, "--> "); m != nil {
			if armed {
				s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: header, Tool: "rustc"}, warn: warn})
			}
			armed = false
			continue
		}
		if m := find(rustPanic, line, " panicked at "); m != nil {
			msg := ""
			if i+1 < len(s.lines) {
				msg = s.lines[i+1]
			}
			s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: msg, Tool: "rust"}})
			continue
		}
		if m := find(rustPanicOld, line, " panicked at "); m != nil {
			// The quoted message may span lines; the location ends it.
			for j := i; j < len(s.lines) && j < i+50; j++ {
				if e := rustPanicEnd.FindStringSubmatchIndex(s.lines[j]); e != nil {
					msg := m[1]
					if j == i {
						msg = line[len(line)-len(m[1]) : e[0]]
					}
					end := s.lines[j]
					s.add(j, hit{loc: Location{File: end[e[2]:e[3]], Line: atoi(end[e[4]:e[5]]), Col: atoi(end[e[6]:e[7]]), Message: msg, Tool: "rust"}})
					break
				}
			}
		}
	}
}
