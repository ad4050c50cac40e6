package failures

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	// goDiag is a go build, go vet or staticcheck diagnostic; the path is
	// relative to where go ran. A column is required: without one, a line is
	// as likely a log.Lshortfile log line as a diagnostic.
	goDiag = regexp.MustCompile(`^(?:vet: )?((?:[A-Za-z]:)?[^\s:]+\.go):(\d+):(\d+): (.+)$`)
	// goTestLog is t.Error/t.Fatal/t.Log output: the file's base name, in the
	// package directory, indented four spaces per test level.
	goTestLog    = regexp.MustCompile(`^((?:    )+)([^\s:]+\.go):(\d+):(?: (.*))?$`)
	goTestState  = regexp.MustCompile(`^=== (?:RUN|CONT|PAUSE|NAME)\s+(\S+)`)
	goTestResult = regexp.MustCompile(`^\s*--- (FAIL|PASS|SKIP): (\S+)`)
	goPkgResult  = regexp.MustCompile(`^(ok|FAIL)\s+(\S+)(?:\s|$)`)
	goPanic      = regexp.MustCompile(`^(panic: |fatal error: )(.*?)(?: \[recovered.*\])?$`)
	goRunning    = regexp.MustCompile(`^\t\t(\S+) \(`)
	goGoroutine  = regexp.MustCompile(`^goroutine \d+ \[`)
	goFrame      = regexp.MustCompile(`^\t((?:[A-Za-z]:)?\S.*?\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// parseGo reads go build, go vet, go test and panic output.
//
// Test log lines name only a base name; which package they belong to is said
// after them, by the "FAIL\t<import path>" line, so they wait for it. Under
// -v, logs of tests that then pass are dropped. Of a panic's goroutine dump
// only the panicking goroutine's frames in user code are kept; for "test
// timed out", the frames of the tests it lists as running.
func parseGo(s *scan) {
	type pending struct {
		h    hit
		test string
	}
	var (
		waiting []pending
		passed  = map[string]bool{}
		current string

		panicMsg string
		running  []string // tests a "test timed out" panic lists
		state    int      // 0 none, 1 after panic:, 2 in first goroutine, 3 in a later one
		fn       string   // function line before a frame
	)
	flush := func(base string, ok bool) {
		for _, p := range waiting {
			if ok || passed[p.test] {
				continue
			}
			p.h.base = base
			s.add(p.h.pos, p.h)
		}
		waiting = nil
		passed = map[string]bool{}
		current = ""
	}
	for i, line := range s.lines {
		if m := find(goDiag, line, ".go:"); m != nil {
			s.add(i, hit{loc: Location{File: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[4], Tool: "go"}})
			continue
		}
		if m := find(goTestLog, line, ".go:"); m != nil {
			h := hit{pos: i, loc: Location{File: m[2], Line: atoi(m[3]), Message: m[4], Tool: "go"}}
			s.claimed[i] = true
			waiting = append(waiting, pending{h, current})
			continue
		}
		if m := goTestState.FindStringSubmatch(line); m != nil {
			current = m[1]
			continue
		}
		if m := goTestResult.FindStringSubmatch(line); m != nil {
			if m[1] == "FAIL" {
				current = m[2]
			} else {
				passed[m[2]] = true
			}
			continue
		}
		if m := goPkgResult.FindStringSubmatch(line); m != nil {
			base, _ := s.goPackageDir(m[2])
			flush(base, m[1] == "ok")
			state = 0
			continue
		}
		if m := goPanic.FindStringSubmatch(line); m != nil {
			panicMsg, running, state, fn = m[1]+m[2], nil, 1, ""
			continue
		}
		if state == 0 {
			continue
		}
		if m := goRunning.FindStringSubmatch(line); m != nil && state == 1 {
			running = append(running, m[1])
			continue
		}
		if goGoroutine.MatchString(line) {
			if state == 1 {
				state = 2
			} else {
				state = 3
			}
			fn = ""
			continue
		}
		if m := find(goFrame, line, ".go:"); m != nil {
			f := fn
			fn = ""
			if f == "" || strings.HasPrefix(f, "created by ") {
				continue
			}
			keep := state == 2 && s.goUserFrame(f, m[1])
			if state == 3 && len(running) > 0 {
				keep = goRunsTest(f, running) && s.goUserFrame(f, m[1])
			}
			if keep {
				s.add(i, hit{loc: Location{File: s.goFramePath(m[1]), Line: atoi(m[2]), Message: panicMsg, Tool: "go"}})
			}
			continue
		}
		if line != "" && !strings.HasPrefix(line, "\t") {
			fn = line
		}
	}
	flush("", false)
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
	base := filepath.Base(filepath.FromSlash(file))
	if base == "_testmain.go" || strings.Contains(filepath.ToSlash(file), "/pkg/mod/") {
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
	return filepath.IsAbs(file) && s.under(filepath.Clean(file))
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
	if filepath.IsAbs(file) {
		return file
	}
	slashed := filepath.ToSlash(file)
	if i := strings.LastIndexByte(slashed, '/'); i > 0 {
		if dir, ok := s.goPackageDir(slashed[:i]); ok {
			return filepath.Join(dir, slashed[i+1:])
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
