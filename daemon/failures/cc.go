package failures

var (
	ccDiag = lazy(`^((?:[A-Za-z]:)?[^\s:]+):(\d+):(?:(\d+):)? (fatal error|error|warning): (.*)$`)
	// ldRef is GNU ld's "file.c:12: undefined reference to `f'", with or
	// without the "/usr/bin/ld: " and "obj.o: " prefixes. Without debug
	// information ld names a section ("x.c:(.text+0x1e)") and only the
	// file's base name, which is not a place to go, so that form is skipped.
	ldRef     = lazy("^(?:\\S*ld(?:\\.\\w+)?: )?(?:\\S+\\.o: )?((?:[A-Za-z]:)?[^\\s:]+):(\\d+):? ((?:undefined reference to|multiple definition of) .*)$")
	lldHeader = lazy(`^\S*ld(?:\.lld)?: error: (.*)$`)
	lldRef    = lazy(`^>>> referenced by (\S+?):(\d+)(?: \((.+):(\d+)\))?$`)
)

// parseCC reads gcc and clang diagnostics ("file:line:col: error: msg";
// notes are skipped) and linker errors: GNU ld's "file.c:12: undefined
// reference to `f'" and lld's "undefined symbol: f" with its ">>> referenced
// by file.c:12 (/abs/file.c:12)" lines.
func parseCC(s *scan) {
	lldMsg := ""
	for i, line := range s.lines {
		if m := find(ccDiag, line, "error: ", "warning: "); m != nil && extClass(m[1]) == "c" {
			s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[4] + ": " + m[5], Tool: "cc"}, warn: m[4] == "warning"})
			continue
		}
		if m := find(ldRef, line, "undefined reference to", "multiple definition of"); m != nil && extClass(m[1]) == "c" {
			s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Message: m[3], Tool: "ld"}})
			continue
		}
		if m := find(lldHeader, line, "error: "); m != nil {
			lldMsg = m[1]
			continue
		}
		if m := find(lldRef, line, ">>> "); m != nil {
			file, ln := m[1], m[2]
			if m[3] != "" {
				file, ln = m[3], m[4]
			}
			s.add(i, hit{loc: Location{File: file, Line: atoi(ln), Message: lldMsg, Tool: "ld"}})
		}
	}
}

var generic = lazy(`^((?:[A-Za-z]:)?[^\s:]+\.[A-Za-z0-9+]+):(\d+):(?:(\d+):)? (.*)$`)

// parseGeneric takes "file:line:col: message" and "file:line: error: message"
// lines that no tool-specific parser claimed: ESLint's unix format without a
// rule, mypy, ruff, javac, shellcheck's gcc format and the like. A line
// without a column and without a severity is too often a log line to count.
func parseGeneric(s *scan) {
	for i, line := range s.lines {
		if s.claimed[i] {
			continue
		}
		m := find(generic, line, ": ")
		if m == nil {
			continue
		}
		class, msg := extClass(m[1]), m[4]
		sev := severityPrefix.FindString(msg)
		switch {
		case class == "go" || class == "c":
			continue // their parsers' rules decide
		case sev == "note:" || sev == "info:":
			continue
		case m[3] == "" && sev == "":
			continue
		}
		tool := ""
		if class == "js" {
			tool = "eslint"
		}
		s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: msg, Tool: tool}, warn: sev == "warning:"})
	}
}
