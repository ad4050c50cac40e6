package failures

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/vzn/vx/internal/anypath"
)

var (
	// goDiag is a go build, go vet or staticcheck diagnostic; the path is
	// relative to where go ran. A column is required: without one, a line is
	// as likely a log.Lshortfile log line as a diagnostic.
	goDiag = lazy(`^(?:vet: )?((?:[A-Za-z]:)?[^\s:]+\.go):(\d+):(\d+): (.+)$`)
	// goTestLog is t.Error/t.Fatal/t.Log output: the file's base name, in the
	// package directory, indented four spaces per test level.
	goTestLog    = lazy(`^((?:    )+)([^\s:]+\.go):(\d+):(?: (.*))?$`)
	goTestState  = lazy(`^=== (?:RUN|CONT|PAUSE|NAME)\s+(\S+)`)
	goTestResult = lazy(`^\s*--- (FAIL|PASS|SKIP): (\S+)`)
	goPkgResult  = lazy(`^(ok|FAIL)\s+(\S+)(?:\s|$)`)
	goPanic      = lazy(`^(panic: |fatal error: )(.*?)(?: \[recovered.*\])?$`)
	goRunning    = lazy(`^\t\t(\S+) \(`)
	goGoroutine  = lazy(`^goroutine \d+ \[`)
	goFrame      = lazy(`^\t((?:[A-Za-z]:)?\S.*?\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// parseGo reads go build, go vet, go test and panic output.
//
// Test log lines name only a base name; which package they belong to is said
// after them, by the "FAIL\t<import path>" line, so they wait for it. Under
// -v, logs of tests that then pass are dropped. Of a panic's goroutine dump
// only the panicking goroutine's frames in user code are kept; for "test
// timed out", the frames of the tests it lists as running.
func parseGo(s *scan) {
	g := &goParser{s: s, passed: map[string]bool{}}
	for i, line := range s.lines {
		if !g.testLine(i, line) {
			g.panicLine(i, line)
		}
	}
	g.flush("", false)
}

// goParser is parseGo's state between lines.
type goParser struct {
	s       *scan
	waiting []goPending
	passed  map[string]bool
	current string

	panicMsg string
	running  []string // tests a "test timed out" panic lists
	state    int      // 0 none, 1 after panic:, 2 in first goroutine, 3 in a later one
	fn       string   // function line before a frame
}

// goPending is a test's log line, reported once its package fails unless
// the test passed.
type goPending struct {
	h    hit
	test string
}

// flush reports the waiting test log lines of a package that ended (in
// base; ok when it passed) and forgets its tests.
func (g *goParser) flush(base string, ok bool) {
	for _, p := range g.waiting {
		if ok || g.passed[p.test] {
			continue
		}
		p.h.base = base
		g.s.add(p.h.pos, p.h)
	}
	g.waiting = nil
	g.passed = map[string]bool{}
	g.current = ""
}

// testLine reads line i when it is a compiler diagnostic, a test's log
// line, a test's state or result, a package's result or the start of a
// panic, and reports whether it was.
func (g *goParser) testLine(i int, line string) bool {
	s := g.s
	if m := find(goDiag, line, ".go:"); m != nil {
		s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[4], Tool: "go"}})
		return true
	}
	if m := find(goTestLog, line, ".go:"); m != nil {
		h := hit{pos: i, loc: Location{File: m[2], Line: atoi(m[3]), Message: m[4], Tool: "go"}}
		s.claimed[i] = true
		g.waiting = append(g.waiting, goPending{h, g.current})
		return true
	}
	if m := goTestState.FindStringSubmatch(line); m != nil {
		g.current = m[1]
		return true
	}
	if m := goTestResult.FindStringSubmatch(line); m != nil {
		if m[1] == "FAIL" {
			g.current = m[2]
		} else {
			g.passed[m[2]] = true
		}
		return true
	}
	if m := goPkgResult.FindStringSubmatch(line); m != nil {
		base, _ := s.goPackageDir(m[2])
		g.flush(base, m[1] == "ok")
		g.state = 0
		return true
	}
	if m := goPanic.FindStringSubmatch(line); m != nil {
		g.panicMsg, g.running, g.state, g.fn = m[1]+m[2], nil, 1, ""
		return true
	}
	return false
}

// panicLine reads line i of a panic's trace: the tests a timeout lists,
// goroutine headers, and frames, reporting the user's frames of the
// panicking goroutine (or of the timed-out tests).
func (g *goParser) panicLine(i int, line string) {
	s := g.s
	if g.state == 0 {
		return
	}
	if m := goRunning.FindStringSubmatch(line); m != nil && g.state == 1 {
		g.running = append(g.running, m[1])
		return
	}
	if goGoroutine.MatchString(line) {
		if g.state == 1 {
			g.state = 2
		} else {
			g.state = 3
		}
		g.fn = ""
		return
	}
	if m := find(goFrame, line, ".go:"); m != nil {
		f := g.fn
		g.fn = ""
		if f == "" || strings.HasPrefix(f, "created by ") {
			return
		}
		keep := g.state == 2 && s.goUserFrame(f, m[1])
		if g.state == 3 && len(g.running) > 0 {
			keep = goRunsTest(f, g.running) && s.goUserFrame(f, m[1])
		}
		if keep {
			s.add(i, hit{loc: Location{File: s.goFramePath(m[1]), Line: atoi(m[2]), Message: g.panicMsg, Tool: "go"}})
		}
		return
	}
	if line != "" && !strings.HasPrefix(line, "\t") {
		g.fn = line
	}
}

// goFuncName returns a trace line's function without its arguments.
func goFuncName(line string) string {
	line = strings.TrimPrefix(line, "created by ")
	if i := strings.Index(line, " in goroutine "); i >= 0 {
		line = line[:i]
	}
	if strings.HasSuffix(line, ")") {
		if i := strings.LastIndexByte(line, '('); i > 0 {
			line = line[:i]
		}
	}
	return line
}

// goFuncPackage returns the import path of a function name such as
// "example.com/m/pkg.(*T).Method".
func goFuncPackage(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return fn
}

// goUserFrame reports whether a frame is in code the user wrote: not the
// runtime, testing or other standard packages, nor a module-cache dependency.
func (s *scan) goUserFrame(fnLine, file string) bool {
	base := path.Base(slashed(file))
	if base == "_testmain.go" || strings.Contains(slashed(file), "/pkg/mod/") {
		return false
	}
	pkg := goFuncPackage(goFuncName(fnLine))
	first, _, _ := strings.Cut(pkg, "/")
	std := !strings.Contains(first, ".") && pkg != "main"
	if !std {
		return true
	}
	// A module path without a dot ("module vx") looks standard; its files
	// are in the workspace.
	return anypath.IsAbs(file, s.win) && s.under(anypath.Clean(file, s.win))
}

// goRunsTest reports whether a frame's function is one of the running tests
// or a closure inside it.
func goRunsTest(fnLine string, tests []string) bool {
	fn := goFuncName(fnLine)
	for _, t := range tests {
		top, _, _ := strings.Cut(t, "/")
		if strings.HasSuffix(fn, "."+top) || strings.Contains(fn, "."+top+".func") {
			return true
		}
	}
	return false
}

// goFramePath maps a -trimpath frame ("example.com/m/pkg/file.go") to the
// package directory when a module in the workspace provides it.
func (s *scan) goFramePath(file string) string {
	if anypath.IsAbs(file, s.win) {
		return file
	}
	sl := slashed(file)
	if i := strings.LastIndexByte(sl, '/'); i > 0 {
		if dir, ok := s.goPackageDir(sl[:i]); ok {
			return filepath.Join(dir, sl[i+1:])
		}
	}
	return file
}

// goPackageDir finds the directory of an import path among the modules of
// the go.mod and go.work files in dir and its parents up to root.
func (s *scan) goPackageDir(importPath string) (string, bool) {
	if s.goMods == nil {
		s.goMods = goModules(s.dir, s.root)
	}
	best := ""
	for mod := range s.goMods {
		if (importPath == mod || strings.HasPrefix(importPath, mod+"/")) && len(mod) > len(best) {
			best = mod
		}
	}
	if best == "" {
		return "", false
	}
	return filepath.Join(s.goMods[best], filepath.FromSlash(strings.TrimPrefix(importPath, best))), true
}

func goModules(dir, root string) map[string]string {
	mods := map[string]string{}
	if dir == "" {
		return mods
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if mod := goModulePath(filepath.Join(d, "go.mod")); mod != "" {
			if _, dup := mods[mod]; !dup {
				mods[mod] = d
			}
		}
		for _, use := range goWorkUses(filepath.Join(d, "go.work")) {
			ud := use
			if !filepath.IsAbs(ud) {
				ud = filepath.Join(d, use)
			}
			if mod := goModulePath(filepath.Join(ud, "go.mod")); mod != "" {
				if _, dup := mods[mod]; !dup {
					mods[mod] = ud
				}
			}
		}
		if d == filepath.Clean(root) || filepath.Dir(d) == d {
			break
		}
	}
	return mods
}

// goModulePath reads the module directive of a go.mod file.
func goModulePath(file string) string {
	for _, f := range goDirectives(file) {
		if len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	return ""
}

// goWorkUses reads the use directives of a go.work file.
func goWorkUses(file string) []string {
	var uses []string
	for _, f := range goDirectives(file) {
		if len(f) == 2 && f[0] == "use" {
			uses = append(uses, filepath.FromSlash(f[1]))
		}
	}
	return uses
}

// goDirectives returns a go.mod or go.work file's directives as
// [verb, first argument] pairs, with blocks ("use ( ... )") flattened.
func goDirectives(file string) [][]string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][]string
	block := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case block != "" && fields[0] == ")":
			block = ""
		case block != "":
			out = append(out, []string{block, strings.Trim(fields[0], "\"`")})
		case len(fields) >= 2 && fields[1] == "(":
			block = fields[0]
		case len(fields) >= 2:
			out = append(out, []string{fields[0], strings.Trim(fields[1], "\"`")})
		}
	}
	return out
}
