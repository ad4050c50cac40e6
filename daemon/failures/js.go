package failures

import (
	"strings"
)

var (
	tscParen  = lazy(`^\s*(\S.*?)\((\d+),(\d+)\): (error|warning) (TS\d+: .*)$`)
	tscPretty = lazy(`^\s*(\S.*?):(\d+):(\d+) - (error|warning) (TS\d+: .*)$`)
)

// parseTSC reads tsc's plain "file(line,col): error TSnnnn: msg" and pretty
// "file:line:col - error TSnnnn: msg" diagnostics (the latter also as
// ts-jest prints them, indented). The pretty summary ("Found 2 errors in
// src/a.ts:12") repeats them and is not matched.
func parseTSC(s *scan) {
	for i, line := range s.lines {
		m := find(tscParen, line, "): ")
		if m == nil {
			m = find(tscPretty, line, " - ")
		}
		if m != nil {
			s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[5], Tool: "tsc"}, warn: m[4] == "warning"})
		}
	}
}

var (
	eslintMessage = lazy(`^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}(\S+))?$`)
	eslintFile    = lazy(`^(?:[A-Za-z]:)?[^\s:]+\.[A-Za-z0-9]+$`)
	eslintUnix    = lazy(`^((?:[A-Za-z]:)?[^\s:]+):(\d+):(\d+): (.*?) \[(Error|Warning)(?:/([^\]]+))?\]$`)
	eslintCompact = lazy(`^((?:[A-Za-z]:)?[^\s:]+): line (\d+), col (\d+), (Error|Warning) - (.*?)(?: \(([^()]+)\))?$`)
)

// parseESLint reads the stylish format (a path line, then indented
// "line:col  severity  message  rule" lines), the unix format
// ("file:line:col: message [Error/rule]") and the compact format
// ("file: line 1, col 2, Error - message (rule)").
func parseESLint(s *scan) {
	file := ""
	for i, line := range s.lines {
		if m := find(eslintMessage, line, "error", "warning"); m != nil && file != "" {
			s.add(i, hit{loc: Location{File: file, Line: atoi(m[1]), Col: atoi(m[2]), Message: eslintText(m[4], m[5]), Tool: "eslint"}, warn: m[3] == "warning"})
			continue
		}
		if m := find(eslintUnix, line, "["); m != nil {
			s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: eslintText(m[4], m[6]), Tool: "eslint"}, warn: m[5] == "Warning"})
			continue
		}
		if m := find(eslintCompact, line, ": line "); m != nil {
			s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: eslintText(m[5], m[6]), Tool: "eslint"}, warn: m[4] == "Warning"})
			continue
		}
		switch {
		case eslintFile.MatchString(line):
			file = line
		case line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t"):
			file = ""
		}
	}
}

func eslintText(msg, rule string) string {
	if rule == "" {
		return msg
	}
	return msg + " (" + rule + ")"
}

var (
	jestBullet  = lazy(`^\s*● (.+)$`)
	jestFrame   = lazy(`^\s+at (?:.*? \()?(\S+?):(\d+):(\d+)\)?$`)
	jestEnd     = lazy(`^\s*(?:(?:PASS|FAIL)\s|console\.\w+$|Test Suites:|Summary of all failing tests)`)
	vitestFrame = lazy(`^\s*❯ (?:\S+ )??(\S+?):(\d+):(\d+)$`)
	testFail    = lazy(`^\s*FAIL\s+(\S+?\.(?:[cm]?[jt]sx?|vue|svelte))(?:\s+>\s+(.*?))?(?:\s+\(\d.*\)|\s+\[.*\])?$`)
	codeFrame   = lazy(`^\s*(?:>\s*)?\d+\s*\|`)
)

// parseJS reads Jest and Vitest failures: the "FAIL file" header, then
// stack frames. Jest frames ("at fn (file:1:2)", "at file:1:2") count only
// inside a "● Suite › test" block, so that console.log call sites do not;
// Vitest frames ("❯ file:1:2") count anywhere. Frames in node_modules,
// node internals and at URLs are skipped.
func parseJS(s *scan) {
	tool := "jest"
	for _, line := range s.lines {
		if strings.Contains(line, "❯") || strings.Contains(line, "⎯") {
			tool = "vitest"
			break
		}
	}
	var (
		inBlock bool
		title   string // the failing test
		reason  string // the first line of its error
		waiting bool   // reason not seen yet
		failHit = -1   // index in s.hits of the last FAIL header
	)
	for i, line := range s.lines {
		if m := find(testFail, line, "FAIL"); m != nil {
			inBlock, title, reason, waiting = false, m[2], "", true
			failHit = len(s.hits)
			s.add(i, hit{loc: Location{File: m[1], Message: title, Tool: tool}})
			continue
		}
		if jestEnd.MatchString(line) {
			inBlock, waiting, failHit = false, false, -1
			continue
		}
		if m := find(jestBullet, line, "●"); m != nil {
			// "● Console" heads console output, whose frames are call sites.
			inBlock = m[1] != "Console"
			title, reason, waiting, failHit = m[1], "", inBlock, -1
			continue
		}
		if m := find(vitestFrame, line, "❯"); m != nil {
			waiting = false
			if jsUserFrame(m[1]) {
				s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: jsMessage(title, reason), Tool: tool}})
			}
			continue
		}
		if m := find(jestFrame, line, "at "); m != nil {
			waiting = false
			if inBlock && jsUserFrame(m[1]) {
				s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: jsMessage(title, reason), Tool: tool}})
			}
			continue
		}
		if waiting && strings.TrimSpace(line) != "" && !codeFrame.MatchString(line) {
			reason, waiting = strings.TrimSpace(line), false
			if failHit >= 0 {
				// A FAIL header's own message is its error.
				s.hits[failHit].loc.Message = jsMessage(title, reason)
			}
		}
	}
}

func jsMessage(title, reason string) string {
	switch {
	case title == "":
		return reason
	case reason == "":
		return title
	}
	return title + ": " + reason
}

// jsUserFrame reports whether a stack frame's file is the project's own.
func jsUserFrame(file string) bool {
	if strings.Contains(file, "://") && !strings.HasPrefix(file, "file://") {
		return false
	}
	return !strings.Contains(file, "node_modules") &&
		!strings.HasPrefix(file, "node:") &&
		!strings.HasPrefix(file, "internal/") &&
		!strings.HasPrefix(file, "<")
}
