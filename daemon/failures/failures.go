// Package failures answers "why did this task fail" from the output a task
// captured: [Excerpt] trims that output to what is worth showing, and
// [Locate] finds the source locations that compilers, linters and test
// runners name in it (Go, tsc, ESLint, Jest, Vitest, pytest and Python
// tracebacks, rustc and cargo test, gcc, clang and the linkers).
//
// Locate is a set of line parsers, one per tool, each matching only the
// shapes its tool prints, so that timestamps, URLs and log lines of a passing
// run stay out of the answer.
package failures

import (
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxLocations caps Locate's answer: past that, the first failures are what a
// reader fixes first anyway.
const maxLocations = 50

// Location is one place in the source that a tool's output names.
//
// Tool says which parser found it: "go", "tsc", "eslint", "jest", "vitest",
// "pytest", "python", "rustc", "rust" (a panic in cargo test), "cc" (gcc or
// clang), "ld" (a linker), or "" for a generic "file:line:col: message" line.
type Location struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message,omitempty"`
	Tool    string `json:"tool,omitempty"`
}

// Locate finds the source locations a tool's output names. dir is the
// directory the task ran in (its project dir); root the workspace root.
//
// ANSI escape sequences are stripped first. Relative paths are made absolute
// against dir, falling back to root when the file exists there and not under
// dir (cargo and some test runners print paths from the workspace root); Go
// test log lines are resolved against the package's directory, found from
// the go.mod or go.work above dir. Absolute paths are kept; all are cleaned.
//
// Warnings (gcc, clang, rustc, tsc, ESLint) are reported only when the output
// names no error: a failed task's errors are its cause, but a task that failed
// on warnings alone (-Werror off with a warning budget, --max-warnings=0)
// still gets pointed somewhere. Frames in dependencies and the standard
// library (node_modules, site-packages, GOROOT, the module cache) are skipped.
//
// Duplicate (file, line, col) are collapsed, keeping the order of first
// appearance; a file named without a line (pytest's FAILED summary, a
// Vitest FAIL header) is dropped when the same file is also named with one.
// At most 50 locations are returned; nil when none are found.
func Locate(output, dir, root string) []Location {
	if dir == "" {
		dir = root
	}
	lines := splitLines(StripANSI(output))
	s := &scan{lines: lines, claimed: make([]bool, len(lines)), dir: dir, root: root, exists: map[string]bool{}}
	for _, parse := range parsers {
		parse(s)
	}
	sort.SliceStable(s.hits, func(i, j int) bool { return s.hits[i].pos < s.hits[j].pos })

	anyError := false
	for _, h := range s.hits {
		if !h.warn {
			anyError = true
			break
		}
	}
	type key struct {
		file      string
		line, col int
	}
	seen := map[key]bool{}
	withLine := map[string]bool{}
	var locs []Location
	for _, h := range s.hits {
		if h.warn && anyError {
			continue
		}
		loc := h.loc
		loc.File = s.resolve(loc.File, h.base)
		if loc.Line < 0 {
			loc.Line = 0
		}
		if loc.Line == 0 {
			loc.Col = 0
		}
		loc.Message = strings.TrimSpace(loc.Message)
		k := key{loc.File, loc.Line, loc.Col}
		if seen[k] {
			continue
		}
		seen[k] = true
		if loc.Line > 0 {
			withLine[loc.File] = true
		}
		locs = append(locs, loc)
	}
	out := locs[:0]
	for _, loc := range locs {
		if loc.Line == 0 && withLine[loc.File] {
			continue
		}
		out = append(out, loc)
	}
	if len(out) > maxLocations {
		out = out[:maxLocations]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// hit is a location as a parser found it, before its path is resolved.
type hit struct {
	pos  int      // line index, for ordering by first appearance
	loc  Location // File as printed
	base string   // directory File is relative to; "" means dir, then root
	warn bool     // a warning, reported only when there is no error
}

// scan is one Locate call's state shared by the parsers.
type scan struct {
	lines   []string
	claimed []bool // lines a specific parser took, so the generic one skips them
	dir     string
	root    string
	hits    []hit
	exists  map[string]bool
	goMods  map[string]string // module path → directory, loaded on first use
}

func (s *scan) add(pos int, h hit) {
	h.pos = pos
	s.claimed[pos] = true
	s.hits = append(s.hits, h)
}

// parsers run in this order; the generic one must be last.
var parsers = []func(*scan){
	parseGo,
	parseRust,
	parseTSC,
	parseESLint,
	parseJS,
	parsePytest,
	parsePython,
	parseCC,
	parseGeneric,
}

// resolve makes a printed path absolute.
func (s *scan) resolve(p, base string) string {
	if strings.HasPrefix(p, "file://") {
		if u, err := url.Parse(p); err == nil {
			p = filepath.FromSlash(u.Path)
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if base != "" {
		return filepath.Join(base, p)
	}
	d := filepath.Join(s.dir, p)
	if s.root != "" && !s.isFile(d) {
		if r := filepath.Join(s.root, p); s.isFile(r) {
			return r
		}
	}
	return d
}

func (s *scan) isFile(p string) bool {
	ok, cached := s.exists[p]
	if !cached {
		fi, err := os.Stat(p)
		ok = err == nil && !fi.IsDir()
		s.exists[p] = ok
	}
	return ok
}

// under reports whether the absolute path p is inside dir or root.
func (s *scan) under(p string) bool {
	for _, d := range []string{s.dir, s.root} {
		if d == "" {
			continue
		}
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// ansiRE matches CSI sequences (colours, cursor moves), OSC sequences
// (titles, hyperlinks) and two-byte escapes.
var ansiRE = lazy(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// StripANSI drops a terminal's escape sequences (colours, cursor moves,
// titles) from s.
func StripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiRE.ReplaceAllString(s, "")
}

// splitLines splits on newlines; within a line, a carriage return overwrote
// what came before it on the terminal, so only the last segment is kept.
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = l
	}
	return lines
}

// find is re.FindStringSubmatch behind a cheap test that line contains one
// of hints: most lines of output match no parser, and Contains is far
// cheaper than a failed regexp match.
func find(re *lazyRE, line string, hints ...string) []string {
	for _, h := range hints {
		if strings.Contains(line, h) {
			return re.FindStringSubmatch(line)
		}
	}
	return nil
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
		if n > 1<<30 {
			return 0
		}
	}
	return n
}

// extClass groups file extensions by the family of tools that print them.
func extClass(file string) string {
	ext := filepath.Ext(file)
	switch ext {
	case ".c", ".h", ".cc", ".cp", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tcc", ".inl",
		".m", ".mm", ".C", ".H", ".cu", ".cuh", ".s", ".S":
		return "c"
	}
	switch strings.ToLower(ext) {
	case ".go":
		return "go"
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte", ".astro":
		return "js"
	case ".py", ".pyi":
		return "py"
	case ".rs":
		return "rs"
	}
	return ""
}
